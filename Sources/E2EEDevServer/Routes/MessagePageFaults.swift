import Foundation
import Hummingbird

/// What a read of a channel's message pages does under a ``FaultInjector/PageFault``: fail,
/// stall then answer, or answer a made-up page of a history that never ends.
struct MessagePageFaults {
    let state: ServerState

    /// The faulted answer, or `nil` when the read then goes on normally (after a stall).
    /// - Throws: ``APIError`` for a status fault, cancellation during a stall.
    func apply(_ fault: FaultInjector.PageFault, channelID: String, before: Int64?, limit: Int) async throws -> Response? {
        switch fault {
        case .status(let code):
            var error = APIError.detail(HTTPResponse.Status(code: code), "Injected page failure")
            if code == 429 { error.headers[.retryAfter] = "1" }
            throw error
        case .stall(let duration):
            try await Task.sleep(for: duration)
            return nil
        case .endless(let contentLength):
            return .json(.object(["messages": .array(madeUpPage(channelID: channelID, before: before, limit: limit, contentLength: contentLength)),
                                  "has_more": .bool(true)]))
        }
    }

    /// `limit` messages, oldest → newest, one millisecond apart, the newest one millisecond
    /// before `before` (or now): each read pages further back, forever.
    private func madeUpPage(channelID: String, before: Int64?, limit: Int, contentLength: Int) -> [JSONValue] {
        let newest = (before ?? state.now) - 1_000
        let content = String(repeating: "A", count: max(4, contentLength / 4 * 4))
        let sender = UUID().uuidString.lowercased()
        return (0..<max(limit, 1)).reversed().map { index in
            .object([
                "id": .string(UUID().uuidString.lowercased()),
                "channel_id": .string(channelID),
                "sender_id": .string(sender),
                "sender_device_id": .string(sender),
                "content": .string(content),
                "content_type": .string("application/x-e2ee-group"),
                "protocol_version": .int(2),
                "reply_to_id": .null,
                "reply_to": .null,
                "attachments": .array([]),
                "edited_at": .null,
                "created_at": .string(Timestamp.format(newest - Int64(index) * 1_000, suffix: .zulu)),
            ])
        }
    }
}
