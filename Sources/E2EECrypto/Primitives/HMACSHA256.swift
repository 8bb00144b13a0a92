import CSodium

/// HMAC-SHA256 (RFC 2104) with keys of any length, through libsodium's streaming API.
public enum HMACSHA256 {
    /// The tag length in bytes.
    public static let tagLength = Int(crypto_auth_hmacsha256_BYTES)

    /// The HMAC of the concatenation of `parts` under `key`.
    ///
    /// The result is returned as ``SecretBytes`` because the protocol uses HMAC outputs as keys
    /// (chain and message keys); copy it out for use as a public tag.
    public static func authenticationCode(for parts: [any ByteView], key: some ByteView) -> SecretBytes {
        compute(key: key) { state in
            for part in parts { update(&state, with: part) }
        }
    }

    /// The HMAC of `message` under `key`.
    public static func authenticationCode(for message: some ByteView, key: some ByteView) -> SecretBytes {
        compute(key: key) { state in update(&state, with: message) }
    }

    /// Runs init, the caller's updates and final, then wipes the state (it holds the key pads).
    private static func compute(key: some ByteView, feed: (inout crypto_auth_hmacsha256_state) -> Void) -> SecretBytes {
        SecretBytes(count: tagLength) { out in
            var state = crypto_auth_hmacsha256_state()
            key.withByteView { k in _ = crypto_auth_hmacsha256_init(&state, k.cBase, k.count) }
            feed(&state)
            _ = crypto_auth_hmacsha256_final(&state, out.cBase)
            withUnsafeMutableBytes(of: &state) { sodium_memzero($0.baseAddress, $0.count) }
        }
    }

    private static func update(_ state: inout crypto_auth_hmacsha256_state, with part: some ByteView) {
        part.withByteView { p in _ = crypto_auth_hmacsha256_update(&state, p.cBase, UInt64(p.count)) }
    }

    /// `true` when `tag` is the (possibly truncated, at least 16 bytes) HMAC of `message`
    /// under `key`; compared in constant time.
    public static func isValid(tag: some ByteView, for message: some ByteView, key: some ByteView) -> Bool {
        let full = authenticationCode(for: message, key: key)
        return tag.withByteView { t in
            guard t.count >= 16, t.count <= tagLength else { return false }
            return full.withUnsafeBytes { f in ConstantTime.equals(t, UnsafeRawBufferPointer(rebasing: f[0..<t.count])) }
        }
    }
}
