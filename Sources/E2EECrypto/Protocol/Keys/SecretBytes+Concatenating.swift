extension SecretBytes {
    /// The concatenation of `parts` as one secret, with no intermediate array.
    static func concatenating(_ parts: [any ByteView]) -> SecretBytes {
        let total = parts.reduce(0) { sum, part in sum + part.withByteView { $0.count } }
        return SecretBytes(count: total) { out in
            var offset = 0
            for part in parts {
                part.withByteView { raw in
                    UnsafeMutableRawBufferPointer(rebasing: out[offset..<(offset + raw.count)]).copyMemory(from: raw)
                    offset += raw.count
                }
            }
        }
    }
}
