import E2EECrypto

/// Listed identities with a time limit per call. A lane asks for them while it holds its
/// device's session lock, so a server that hangs would stall that device's receiving and
/// sending for as long as the HTTP client waits. Past `limit` the call throws
/// ``ServerError/transport(_:)`` (the receiver then treats the list as unavailable: the message
/// waits in the pending queue and is re-driven later) and the request is cancelled; its late
/// answer, if any, is dropped.
struct TimeLimitedListedIdentities: ListedIdentityProviding {
    /// Where the answers come from.
    let base: any ListedIdentityProviding
    /// How long one call may take.
    let limit: Duration

    func listedIdentities(userID: UserID, refresh: Bool) async throws -> [String: IdentityBlob] {
        let answer = OneShot<[String: IdentityBlob]>()
        let base = base
        let limit = limit
        let fetch = Task {
            do {
                answer.fulfil(.success(try await base.listedIdentities(userID: userID, refresh: refresh)))
            } catch {
                answer.fulfil(.failure(error))
            }
        }
        let timer = Task {
            try await Task.sleep(for: limit)
            answer.fulfil(.failure(ServerError.transport("no answer from the device directory within \(limit)")))
        }
        // Whichever came second is not waited for: a late fetch is cancelled, a pending timer too.
        defer {
            fetch.cancel()
            timer.cancel()
        }
        return try await withTaskCancellationHandler {
            try await answer.value()
        } onCancel: {
            answer.fulfil(.failure(CancellationError()))
        }
    }
}
