import GRDB
import Hummingbird

/// `/api/v1/devices`: list the caller's devices, delete one (its bundle and sessions go too).
struct DeviceRoutes {
    let state: ServerState

    func register(on router: Router<DevRequestContext>) {
        let group = router.group("api/v1/devices")
        group.get { request, _ in
            let caller = try await state.authenticate(request)
            let devices = try await state.database.read { db in
                try Row.fetchAll(db, sql: "SELECT id, name, created_at FROM devices WHERE user_id = ? ORDER BY created_at, rowid", arguments: [caller.userID])
                    .map { row -> JSONValue in
                .object([
                    "id": .string(row["id"]),
                    "device_name": .string(row["name"]),
                    "is_current": .bool((row["id"] as String) == caller.deviceID),
                    "created_at": .string(Timestamp.format(row["created_at"], suffix: .zulu)),
                ])
                }
            }
            return Response.json(.array(devices))
        }
        group.delete("{id}") { request, context in
            let caller = try await state.authenticate(request)
            let id = try context.uuidParameter("id")
            let deleted = try await state.database.write { db in
                try db.execute(sql: "DELETE FROM devices WHERE id = ? AND user_id = ?", arguments: [id, caller.userID])
                return db.changesCount > 0
            }
            guard deleted else { throw APIError.detail(.notFound, "Device not found") }
            return Response.noContent
        }
    }
}
