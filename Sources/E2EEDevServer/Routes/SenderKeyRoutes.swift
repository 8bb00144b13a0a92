import GRDB
import Hummingbird

/// `/api/v1/keys/channels/{id}/…`: the sender-key index (public data, readable by any logged-in
/// user) and the x3dh-setup slot our protocol does not use.
struct SenderKeyRoutes {
    let state: ServerState

    func register(on group: RouterGroup<DevRequestContext>) {
        group.post("channels/{id}/sender-keys") { request, context in
            _ = try await state.authenticate(request)
            let channelID = try context.uuidParameter("id")
            let body = BodyReader(body: try await request.jsonObject(context: context))
            let deviceID = try body.uuid("device_id")
            let publicKey = try body.string("sender_key_public")
            let chainKey = try body.string("chain_key")
            let messageNumber = try body.optionalInt("message_number") ?? 0
            guard publicKey.count <= KeyRoutes.fieldLimit, chainKey.count <= KeyRoutes.fieldLimit else { throw APIError.internalError() }
            let known = try await state.database.write { db -> Bool in
                guard try Bool.fetchOne(db, sql: "SELECT 1 FROM channels WHERE id = ?", arguments: [channelID]) != nil else { return false }
                try db.execute(sql: """
                    INSERT INTO sender_keys (channel_id, device_id, sender_key_public, chain_key, message_number) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (channel_id, device_id) DO UPDATE SET sender_key_public = excluded.sender_key_public,
                    chain_key = excluded.chain_key, message_number = excluded.message_number
                    """, arguments: [channelID, deviceID, publicKey, chainKey, messageNumber])
                return true
            }
            // The reference server fails on the foreign key with an unhandled (plain-text) 500.
            guard known else { throw APIError.internalError() }
            return Response.json(.object(["status": .string("ok")]), status: .created)
        }
        group.get("channels/{id}/sender-keys") { request, context in
            _ = try await state.authenticate(request)
            let channelID = try context.uuidParameter("id")
            let entries = try await state.database.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM sender_keys WHERE channel_id = ?", arguments: [channelID]).map { row -> JSONValue in
                .object([
                    "device_id": .string(row["device_id"]),
                    "sender_key_public": .string(row["sender_key_public"]),
                    "chain_key": .string(row["chain_key"]),
                    "message_number": .int(row["message_number"]),
                ])
                }
            }
            return Response.json(.array(entries))
        }
        group.post("channels/{id}/x3dh-setup") { request, context in
            _ = try await state.authenticate(request)
            let channelID = try context.uuidParameter("id")
            let body = try await request.jsonObject(context: context)
            let expiresAt = state.now + Duration.seconds(30 * 24 * 3600).microseconds
            try await state.database.write { db in
                try db.execute(sql: "INSERT OR REPLACE INTO x3dh_setups (channel_id, body, expires_at) VALUES (?, ?, ?)",
                               arguments: [channelID, body.text, expiresAt])
            }
            return Response.json(.object(["status": .string("ok")]), status: .created)
        }
        group.get("channels/{id}/x3dh-setup") { request, context in
            _ = try await state.authenticate(request)
            let channelID = try context.uuidParameter("id")
            let now = state.now
            let text = try await state.database.read { db in
                try String.fetchOne(db, sql: "SELECT body FROM x3dh_setups WHERE channel_id = ? AND expires_at > ?", arguments: [channelID, now])
            }
            guard let text, let value = try? JSONValue.parse(Data(text.utf8)) else { throw APIError.detail(.notFound, "No X3DH setup") }
            return Response.json(value)
        }
    }
}

import Foundation
