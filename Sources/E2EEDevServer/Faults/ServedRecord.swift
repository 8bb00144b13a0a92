import Foundation

extension FaultInjector {
    /// What the key bundle routes serve as one device's signed prekey record under
    /// ``FaultInjector/serveRecord(device:record:toViewer:)``. Records are opaque to the server:
    /// nothing here is parsed or checked.
    public enum ServedRecord: Sendable, Equatable {
        /// The record as it is stored now (the fault cleared).
        case current
        /// No record (the proposal's "none"): the device is served as one that never uploaded a
        /// bundle, the only way the reference server shows a device without a signed prekey. It
        /// is left out of `GET /keys/{user_id}/bundles`, its `GET /keys/{device_id}/bundle`
        /// answers 404, and no one-time prekey is handed out nor `keys.low_otp` sent for it.
        case absent
        /// These strings in place of `signed_pre_key` and `signed_pre_key_signature` (base64 on
        /// the wire, served exactly as given); the rest of the stored bundle is served as usual.
        case given(signedPreKey: String, signature: String)

        /// ``given(signedPreKey:signature:)`` with `record` and `signature` base64-encoded.
        public static func bytes(_ record: Data, signature: Data) -> ServedRecord {
            .given(signedPreKey: record.base64EncodedString(), signature: signature.base64EncodedString())
        }
    }
}

/// The ``FaultInjector/ServedRecord`` faults by device, for every viewer or for one: a viewer's
/// own entry wins over the device's entry for everyone.
struct RecordFaults: Sendable {
    private struct Key: Hashable {
        let device: String
        /// The viewing device, or `nil` for every viewer.
        let viewer: String?
    }

    private var entries: [Key: FaultInjector.ServedRecord] = [:]

    /// Whether no record fault is set.
    var isEmpty: Bool { entries.isEmpty }

    /// Sets what `device`'s record is served as to `viewer` (to everyone when `nil`).
    /// ``FaultInjector/ServedRecord/current`` for everyone clears every entry of the device;
    /// for one viewer it is kept, so that this viewer sees the stored record while others do not.
    mutating func set(device: String, _ record: FaultInjector.ServedRecord, viewer: String?) {
        let device = device.lowercased()
        if viewer == nil, record == .current {
            entries = entries.filter { $0.key.device != device }
        } else {
            entries[Key(device: device, viewer: viewer?.lowercased())] = record
        }
    }

    /// What `device`'s record is served as to `viewer`.
    func served(device: String, viewer: String) -> FaultInjector.ServedRecord {
        let device = device.lowercased()
        return entries[Key(device: device, viewer: viewer.lowercased())] ?? entries[Key(device: device, viewer: nil)] ?? .current
    }
}
