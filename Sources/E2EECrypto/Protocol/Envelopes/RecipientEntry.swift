/// One recipient of a DM or SKD envelope (docs/spec/protocol.md §5):
/// `recipient_device_id(16) || len(u16) || pairwise message`.
public struct RecipientEntry: Sendable, Hashable {
    /// The device the entry is addressed to.
    public let recipientDevice: WireUUID
    /// The pairwise (Double Ratchet) message bytes for that device, opaque at this layer.
    public let pairwiseMessage: [UInt8]

    /// Assembles an entry.
    /// - Throws: ``ProtocolError/truncated(_:expected:actual:)`` for a pairwise message shorter
    ///   than ``ProtocolLimits/minPairwiseMessageBytes``, ``ProtocolError/limitExceeded(_:limit:actual:)``
    ///   for one longer than a `u16` length can carry.
    public init(recipientDevice: WireUUID, pairwiseMessage: [UInt8]) throws {
        try Self.checkLength(pairwiseMessage.count)
        self.recipientDevice = recipientDevice
        self.pairwiseMessage = pairwiseMessage
    }

    private static func checkLength(_ length: Int) throws {
        guard length >= ProtocolLimits.minPairwiseMessageBytes else {
            throw ProtocolError.truncated(.recipientEntry, expected: ProtocolLimits.minPairwiseMessageBytes, actual: length)
        }
        guard length <= Int(UInt16.max) else {
            throw ProtocolError.limitExceeded(.recipientEntry, limit: Int(UInt16.max), actual: length)
        }
    }

    /// Checks a recipient list: count within ``ProtocolLimits/recipientCountRange``, distinct,
    /// and none equal to the sending device.
    /// - Throws: ``ProtocolError/limitExceeded(_:limit:actual:)`` or ``ProtocolError/invalidRecipients(reason:)``.
    static func validate(_ devices: [WireUUID], sender: WireUUID, at location: WireLocation) throws {
        try checkCount(devices.count, at: location)
        var seen = Set<WireUUID>()
        for device in devices {
            guard device != sender else { throw ProtocolError.invalidRecipients(reason: "an entry addressed to the sending device") }
            guard seen.insert(device).inserted else { throw ProtocolError.invalidRecipients(reason: "the same recipient twice") }
        }
    }

    private static func checkCount(_ count: Int, at location: WireLocation) throws {
        let range = ProtocolLimits.recipientCountRange
        guard count >= range.lowerBound else { throw ProtocolError.limitExceeded(location, limit: range.lowerBound, actual: count) }
        guard count <= range.upperBound else { throw ProtocolError.limitExceeded(location, limit: range.upperBound, actual: count) }
    }

    /// Writes `n(u16) || n × entry`.
    static func write(_ entries: [RecipientEntry], into writer: inout WireWriter) {
        writer.write(UInt16(entries.count))
        for entry in entries {
            writer.write(entry.recipientDevice)
            writer.write(UInt16(entry.pairwiseMessage.count))
            writer.write(entry.pairwiseMessage)
        }
    }

    /// Reads `n(u16) || n × entry`, checking the count before reading any entry and each length
    /// before reading its bytes, then the recipient rules.
    /// - Throws: as ``validate(_:sender:at:)``, plus ``ProtocolError/truncated(_:expected:actual:)``.
    static func readList(from reader: inout WireReader, sender: WireUUID, at location: WireLocation) throws -> [RecipientEntry] {
        let count = Int(try reader.readUInt16())
        try checkCount(count, at: location)
        var entries: [RecipientEntry] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let device = try reader.readUUID()
            let length = Int(try reader.readUInt16())
            try checkLength(length)
            entries.append(RecipientEntry(checkedDevice: device, message: try reader.readBytes(length)))
        }
        try validate(entries.map(\.recipientDevice), sender: sender, at: location)
        return entries
    }

    private init(checkedDevice: WireUUID, message: [UInt8]) {
        recipientDevice = checkedDevice
        pairwiseMessage = message
    }
}

extension Array where Element == RecipientEntry {
    /// The pairwise message addressed to `device`.
    /// - Throws: ``ProtocolError/notARecipient``.
    func pairwiseMessage(for device: WireUUID) throws -> [UInt8] {
        guard let entry = first(where: { $0.recipientDevice == device }) else { throw ProtocolError.notARecipient }
        return entry.pairwiseMessage
    }
}

/// Checks that an envelope of `count` bytes fits the `content` limit once base64-encoded.
/// - Throws: ``ProtocolError/limitExceeded(_:limit:actual:)``.
func requireEncodableContent(byteCount count: Int, at location: WireLocation) throws {
    let base64Length = (count + 2) / 3 * 4
    guard base64Length <= ProtocolLimits.maxContentBase64Length else {
        throw ProtocolError.limitExceeded(location, limit: ProtocolLimits.maxContentBase64Length, actual: base64Length)
    }
}
