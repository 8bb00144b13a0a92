import CSodium

/// Comparisons whose running time does not depend on the secret contents compared.
public enum ConstantTime {
    /// `true` when both byte strings are equal. The lengths are compared first (they are not
    /// secret); equal-length contents are compared with `sodium_memcmp`.
    public static func equals(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard lhs.count > 0, let a = lhs.baseAddress, let b = rhs.baseAddress else { return true }
        return sodium_memcmp(a, b, lhs.count) == 0
    }

    /// `true` when both arrays are equal, compared in constant time for equal lengths.
    public static func equals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        lhs.withUnsafeBytes { a in rhs.withUnsafeBytes { b in equals(a, b) } }
    }
}

/// Wipes an array that held secret bytes and leaves it empty.
public func secureWipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { raw in
        if let base = raw.baseAddress { sodium_memzero(base, raw.count) }
    }
    bytes.removeAll()
}
