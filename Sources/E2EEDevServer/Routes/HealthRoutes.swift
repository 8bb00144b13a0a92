import Hummingbird

/// `GET /health`: 200 `{"status":"ok"}`, as the reference server answers (docs/spec/server-api.md §14).
struct HealthRoutes {
    func register(on router: Router<DevRequestContext>) {
        router.get("health") { _, _ in Response.json(.object(["status": .string("ok")])) }
    }
}
