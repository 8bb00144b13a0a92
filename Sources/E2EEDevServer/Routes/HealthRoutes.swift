import Hummingbird

/// `GET /health`: 200 `{"status":"ok"}`, as the reference server answers (API.md "Verified" 14).
struct HealthRoutes {
    func register(on router: Router<DevRequestContext>) {
        router.get("health") { _, _ in Response.json(.object(["status": .string("ok")])) }
    }
}
