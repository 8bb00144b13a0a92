import Foundation
import GRDB
import Hummingbird

/// `POST /_dev/users/{user_id}/devices`: the server acting as an attacker (THREATS T11) adds a
/// device to a user without the user's password and answers that device's tokens
/// (`{access_token, refresh_token, user_id, device_id, …}`), so whoever holds them uploads keys
/// it controls. Body fields, each optional: `device_name`, and `replace_device_id` — a device of
/// the user removed first (with its bundle), which swaps a pinned device for the attacker's.
/// A development-server route beside ``DevAdminRoutes``' `/_dev/faults`; no real server has it.
struct DevDeviceInjectionRoutes {
    let state: ServerState

    func register(on router: Router<DevRequestContext>) {
        router.post("_dev/users/{user_id}/devices") { request, context in
            let userID = try context.uuidParameter("user_id")
            let body = try await request.jsonObject(context: context)
            let name = body["device_name"]?.stringValue ?? "injected"
            let replaced = body["replace_device_id"]?.stringValue?.lowercased()
            let deviceID = state.newID()
            let now = state.now
            let tokens = try await state.database.write { db -> JSONValue? in
                guard try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM users WHERE id = ?", arguments: [userID]) == 1 else { return nil }
                if let replaced {
                    try db.execute(sql: "DELETE FROM devices WHERE id = ? AND user_id = ?", arguments: [replaced, userID])
                }
                try db.execute(sql: "INSERT INTO devices (id, user_id, name, created_at) VALUES (?, ?, ?, ?)",
                               arguments: [deviceID, userID, name, now])
                return try state.issueTokens(db, userID: userID, deviceID: deviceID)
            }
            guard let tokens else { throw APIError.detail(.notFound, "User not found") }
            return Response.json(tokens, status: .created)
        }
    }
}
