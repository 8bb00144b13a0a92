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
        key.withByteView { k in
            SecretBytes(count: tagLength) { out in
                var state = HMACState(key: k)
                for part in parts { part.withByteView { state.update($0) } }
                state.finish(into: out)
            }
        }
    }

    /// The HMAC of `message` under `key`.
    @inlinable
    public static func authenticationCode(for message: some ByteView, key: some ByteView) -> SecretBytes {
        message.withByteView { m in key.withByteView { k in authenticationCode(message: m, key: k) } }
    }

    /// Non-generic core of ``authenticationCode(for:key:)``.
    @usableFromInline
    static func authenticationCode(message: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) -> SecretBytes {
        SecretBytes(count: tagLength) { out in
            var state = HMACState(key: key)
            state.update(message)
            state.finish(into: out)
        }
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

/// A running HMAC-SHA256 computation; ``finish(into:)`` writes the tag and wipes the state,
/// which holds the key pads.
struct HMACState {
    private var state = crypto_auth_hmacsha256_state()

    init(key: UnsafeRawBufferPointer) {
        _ = crypto_auth_hmacsha256_init(&state, key.cBase, key.count)
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        _ = crypto_auth_hmacsha256_update(&state, bytes.cBase, UInt64(bytes.count))
    }

    /// Writes the 32-byte tag to the start of `output` and wipes the state.
    mutating func finish(into output: UnsafeMutableRawBufferPointer) {
        _ = crypto_auth_hmacsha256_final(&state, output.cBase)
        withUnsafeMutableBytes(of: &state) { sodium_memzero($0.baseAddress, $0.count) }
    }
}
