import E2EECrypto

/// The identity blobs the server lists for a user's devices (`GET /keys/{user}/bundles`), as
/// docs/spec/protocol.md §2 step 3 and §5 need them for a device not pinned yet. Implementations cache
/// and refresh; a device missing from the answer is not one of the user's devices.
@_spi(Benchmarks) public protocol ListedIdentityProviding: Sendable {
    /// The listed identity blob of every device of `userID`, keyed by device id (lower-case).
    /// `refresh` bypasses any cache (a device unknown to the cached answer may be new).
    /// - Throws: ``ServerError`` when the server could not be asked.
    func listedIdentities(userID: UserID, refresh: Bool) async throws -> [String: IdentityBlob]
}
