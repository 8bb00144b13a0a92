import GRDB
import Hummingbird

/// `/api/v1/keys`: bundle upload (upsert), one-time prekeys (append), bundle fetches (with the
/// never-popped quirk and `keys.low_otp`), the unused x3dh-setup slot, and the sender-key index.
struct KeyRoutes {
    let state: ServerState
    static let fieldLimit = 255

    func register(on router: Router<DevRequestContext>) {
        let group = router.group("api/v1/keys")
        group.post("upload") { request, context in try await upload(request, context) }
        group.post("one-time") { request, context in try await appendOneTime(request, context) }
        group.get("{id}/bundles") { request, context in
            let caller = try await state.authenticate(request)
            let userID = try context.uuidParameter("id")
            let devices = try await state.database.read { db in
                try String.fetchAll(db, sql: "SELECT device_id FROM key_bundles WHERE user_id = ?", arguments: [userID])
            }
            var bundles: [JSONValue] = []
            for deviceID in devices {
                if let bundle = try await fetchBundle(deviceID, viewer: caller.deviceID) { bundles.append(bundle) }
            }
            return Response.json(.array(bundles))
        }
        group.get("{id}/bundle") { request, context in
            let caller = try await state.authenticate(request)
            let deviceID = try context.uuidParameter("id")
            guard let bundle = try await fetchBundle(deviceID, viewer: caller.deviceID) else {
                throw APIError.detail(.notFound, "Key bundle not found")
            }
            return Response.json(bundle)
        }
        SenderKeyRoutes(state: state).register(on: group)
    }

    private func upload(_ request: Request, _ context: DevRequestContext) async throws -> Response {
        let caller = try await state.authenticate(request)
        let body = BodyReader(body: try await request.jsonObject(context: context))
        let deviceID = try body.uuid("device_id")
        let identityKey = try body.string("identity_key")
        let signedPreKey = try body.string("signed_pre_key")
        let signature = try body.string("signed_pre_key_signature")
        let oneTime = try body.strings("one_time_pre_keys", required: false)
        guard identityKey.count <= Self.fieldLimit, signedPreKey.count <= Self.fieldLimit else { throw APIError.internalError() }
        let stored = try await state.database.write { db -> Bool in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM devices WHERE id = ? AND user_id = ?", arguments: [deviceID, caller.userID]) != nil
            else { return false }
            try db.execute(sql: "DELETE FROM key_bundles WHERE device_id = ?", arguments: [deviceID])
            try db.execute(sql: """
                INSERT INTO key_bundles (device_id, user_id, identity_key, signed_pre_key, signed_pre_key_signature)
                VALUES (?, ?, ?, ?, ?)
                """, arguments: [deviceID, caller.userID, identityKey, signedPreKey, signature])
            for key in oneTime {
                try db.execute(sql: "INSERT INTO one_time_pre_keys (device_id, key) VALUES (?, ?)", arguments: [deviceID, key])
            }
            return true
        }
        guard stored else { throw APIError.detail(.notFound, "Device not found") }
        return .json(.object(["status": .string("ok")]), status: .created)
    }

    private func appendOneTime(_ request: Request, _ context: DevRequestContext) async throws -> Response {
        let caller = try await state.authenticate(request)
        let body = BodyReader(body: try await request.jsonObject(context: context))
        let deviceID = try body.uuid("device_id")
        let keys = try body.strings("one_time_pre_keys")
        let count = try await state.database.write { db -> Int? in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM key_bundles WHERE device_id = ? AND user_id = ?", arguments: [deviceID, caller.userID]) != nil
            else { return nil }
            for key in keys {
                try db.execute(sql: "INSERT INTO one_time_pre_keys (device_id, key) VALUES (?, ?)", arguments: [deviceID, key])
            }
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM one_time_pre_keys WHERE device_id = ?", arguments: [deviceID]) ?? 0
        }
        guard let count else { throw APIError.detail(.notFound, "Key bundle not found") }
        return .json(.object(["status": .string("ok"), "count": .int(count)]), status: .created)
    }

    /// One device's bundle with its first one-time prekey (popped unless the quirk is on), then
    /// `keys.low_otp` to the owner when the list held the threshold (10) or fewer keys, with
    /// `remaining` = list length − 1 whether or not the key was popped (docs/spec/server-api.md §13).
    /// The signed prekey record is the one ``FaultInjector/serveRecord(device:record:toViewer:)``
    /// serves `viewer` (the requesting device): a record served as absent is a bundle that does
    /// not exist (`nil`, nothing popped, no event).
    private func fetchBundle(_ deviceID: String, viewer: String) async throws -> JSONValue? {
        let served = await state.faults.servedRecord(device: deviceID, viewer: viewer)
        if served == .absent { return nil }
        let pop = !state.quirks.oneTimePreKeyNeverPopped
        let result = try await state.database.write { db -> (JSONValue, String, Int)? in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM key_bundles WHERE device_id = ?", arguments: [deviceID]) else { return nil }
            let first = try Row.fetchOne(db, sql: "SELECT seq, key FROM one_time_pre_keys WHERE device_id = ? ORDER BY seq LIMIT 1", arguments: [deviceID])
            if pop, let first {
                try db.execute(sql: "DELETE FROM one_time_pre_keys WHERE seq = ?", arguments: [first["seq"] as Int64])
            }
            let stored = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM one_time_pre_keys WHERE device_id = ?", arguments: [deviceID]) ?? 0
            let listLength = pop && first != nil ? stored + 1 : stored
            var (signedPreKey, signature): (String, String) = (row["signed_pre_key"], row["signed_pre_key_signature"])
            if case .given(let record, let recordSignature) = served { (signedPreKey, signature) = (record, recordSignature) }
            let bundle: JSONValue = .object([
                "device_id": .string(deviceID),
                "identity_key": .string(row["identity_key"]),
                "signed_pre_key": .string(signedPreKey),
                "signed_pre_key_signature": .string(signature),
                "one_time_pre_key": .optional(first?["key"]),
                "one_time_pre_key_count": .int(stored),
            ])
            return (bundle, row["user_id"], listLength)
        }
        guard let (bundle, ownerID, listLength) = result else { return nil }
        if listLength <= state.configuration.lowOneTimePreKeyThreshold {
            // The reference server counts after a pop it never makes; an empty list reports 0.
            let remaining = max(0, listLength - 1)
            await state.hub.publish(toUser: ownerID, ServerEvent.lowOneTimePreKeys(deviceID: deviceID, remaining: remaining))
        }
        return bundle
    }
}
