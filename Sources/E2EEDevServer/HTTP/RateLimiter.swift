/// The reference server's rate limit: per IP, a fixed window that starts at the first request,
/// every request counted (4xx included).
actor RateLimiter {
    private let limit: DevServerConfiguration.RateLimit?
    private var windows: [String: (start: Int64, count: Int)] = [:]

    init(limit: DevServerConfiguration.RateLimit?) {
        self.limit = limit
    }

    /// Counts a request from `ip` at `now`; `false` when it is over the limit.
    func admit(ip: String, now: Int64) -> Bool {
        guard let limit else { return true }
        var window = windows[ip] ?? (start: now, count: 0)
        if now - window.start >= limit.window.microseconds { window = (start: now, count: 0) }
        window.count += 1
        windows[ip] = window
        return window.count <= limit.requests
    }
}
