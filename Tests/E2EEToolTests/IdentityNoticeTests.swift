import E2EEMessaging
@testable import E2EEToolCore
import Foundation
import Testing

/// What `listen` prints for a change of members and devices.
@Suite("listen: membership and device notices")
struct IdentityNoticeTests {
    @Test("every identity event has its own event name, a line and a JSON object with the channel, user and device")
    func notices() throws {
        #expect(IdentityNotice(.newDevice(userID: "u", deviceID: "d")) == nil, "first-contact pins are not printed")
        let events: [(IdentityEvent, String)] = [
            (.identityChanged(userID: "u", deviceID: "d"), "device_identity_changed"),
            (.deviceRemoved(userID: "u", deviceID: "d"), "device_removed"),
            (.unexpectedMember(channelID: "c", userID: "u"), "member_unexpected"),
            (.recipientAdded(channelID: "c", userID: "u", deviceID: "d", held: false), "recipient_added"),
            (.recipientAdded(channelID: "c", userID: "u", deviceID: "d", held: true), "recipient_held"),
            (.recipientRemoved(channelID: "c", userID: "u", deviceID: "d"), "recipient_removed"),
            (.memberHeld(channelID: "c", userID: "u"), "member_held"),
        ]
        for (event, name) in events {
            let notice = try #require(IdentityNotice(event))
            #expect(notice.event == name)
            #expect(notice.line().hasPrefix("* ") && notice.line().contains("user u"))
            let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(notice)) as? [String: Any])
            #expect(json["event"] as? String == name)
            #expect(json["user_id"] as? String == "u")
        }
        #expect(Set(events.map(\.1)).count == events.count)
        #expect(IdentityNotice(.unexpectedMember(channelID: "c", userID: "u"))?.line().contains("in channel c") == true)
        #expect(IdentityNotice(.channelKindContradicted(channelID: "c"))?.event == "channel_kind_contradicted")
    }
}

/// What `listen` prints for a clock warning (docs/spec/protocol.md §10.19).
@Suite("listen: clock notices")
struct ClockNoticeTests {
    @Test("clockWentBack and clockSuspect print their own events and lines; other events are not clock notices")
    func notices() throws {
        let back = try #require(ClockNotice(.clockWentBack))
        let suspect = try #require(ClockNotice(.clockSuspect))
        #expect(back.event == "clock_went_back" && suspect.event == "clock_suspect")
        #expect(back.line().hasPrefix("* WARNING:") && back.line().contains("clock confirm"))
        #expect(back.line() != suspect.line())
        let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(suspect)) as? [String: Any])
        #expect(json.count == 1 && json["event"] as? String == "clock_suspect")
        #expect(ClockNotice(.reloadNeeded) == nil)
    }
}

/// What `listen` prints for the own user key's events (docs/spec/protocol.md §10.12–§10.13).
@Suite("listen: link notices")
struct LinkNoticeTests {
    @Test("each linking event prints its own event, date or reason; other events are not link notices")
    func notices() throws {
        let end = Date(timeIntervalSince1970: 1_800_000_000)
        let stopped = try #require(LinkNotice(.linking(.issuingStopped(.restoredFile))))
        #expect(stopped.event == "issuing_stopped" && stopped.reason == "restoredFile" && stopped.line().contains("restoredFile"))
        let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(stopped)) as? [String: Any])
        #expect(json.count == 2 && json["reason"] as? String == "restoredFile")
        let expiring = try #require(LinkNotice(.linking(.certificateExpiring(notAfter: end))))
        #expect(expiring.event == "certificate_expiring" && expiring.notAfter == end.formatted(.iso8601))
        #expect(LinkNotice(.linking(.certificateRenewed(notAfter: end)))?.event == "certificate_renewed")
        #expect(LinkNotice(.linking(.renewalHeldByClock))?.line().contains("clock confirm") == true)
        #expect(LinkNotice(.clockSuspect) == nil)
    }

    @Test("a transfer's progress prints as transfer status does, never as a clock warning")
    func transferProgress() throws {
        let progress = TransferProgress(id: "t1", direction: .receiving(from: DeviceID("phone")), phase: 1, recordsDone: 120, recordsExpected: 300,
                                        state: .running)
        let notice = try #require(LinkNotice(.linking(.transfer(progress))))
        #expect(notice.event == "transfer")
        #expect(notice.line() == "* transfer t1 receiving from phone phase 1: 120/300 records, running", "\(notice.line())")
    }
}
