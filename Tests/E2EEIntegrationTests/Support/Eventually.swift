/// Whether `condition` holds within `limit`, asked every 10 ms: for state that nothing
/// announces (the dev server's subscriptions and sockets, an account's failure record).
func eventually(within limit: Duration, _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return false
}
