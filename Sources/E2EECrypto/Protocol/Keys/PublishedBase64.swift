enum PublishedBase64 {
    /// Decodes a published key string strictly (canonical base64, at most
    /// ``ProtocolLimits/maxPublishedKeyBase64Length`` characters, checked first).
    /// - Throws: ``ProtocolError/limitExceeded(_:limit:actual:)`` when too long,
    ///   ``ProtocolError/malformed(_:reason:)`` for any other base64 fault.
    static func decode(_ text: String, at location: WireLocation) throws -> [UInt8] {
        do {
            return try Base64.decode(text, maxEncodedLength: ProtocolLimits.maxPublishedKeyBase64Length)
        } catch .tooLong(let length, let limit) {
            throw ProtocolError.limitExceeded(location, limit: limit, actual: length)
        } catch {
            throw ProtocolError.malformed(location, reason: "base64: \(error)")
        }
    }
}
