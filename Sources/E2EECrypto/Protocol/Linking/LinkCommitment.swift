/// N's commitment to its nonce (docs/spec/protocol.md §10.22): `commit = SHA-256("e2ee-link-commit-v1"
/// || nonce_N)`, sent in the `request` before the primary shows its own nonce, so neither side
/// can choose its nonce after seeing the other's.
public enum LinkCommitment {
    /// The label hashed before the nonce.
    public static let label = Array("e2ee-link-commit-v1".utf8)

    /// The commitment to `nonce`, hashed from a wiped buffer.
    public static func commit(to nonce: SecretBytes) -> [UInt8] {
        let input = SecretWireWriter.build(count: label.count + nonce.count) { writer in
            writer.write(label)
            writer.write(nonce)
        }
        return SHA256.hash(input)
    }

    /// Whether `commit` is the commitment to `nonce`, compared in constant time.
    public static func verifies(_ commit: [UInt8], nonce: SecretBytes) -> Bool {
        ConstantTime.equals(Self.commit(to: nonce), commit)
    }
}
