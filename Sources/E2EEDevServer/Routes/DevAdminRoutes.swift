import Hummingbird

/// `POST /_dev/faults`: switches faults from outside the process (for a person running the
/// executable). Body fields, each optional: `fail_next` `{count, status, plain_text?}`,
/// `drop_after_frames` (int or null), `duplicate_events`, `reorder_events` (bools, or a share
/// between 0 and 1), `fault_seed` (int, for those shares and the commit delays), `silent`,
/// `ignore_client_frames` (bools), `delay_events_ms` (int or null), `commit_delay_ms` (int or
/// null: publish first, commit up to that much later), `tie_run_length` (int or null),
/// `refuse_upgrades` (status, `{status, retry_after?}` or null), `drop_next_requests` (int),
/// `drop_sockets` (true, or `{user_id}`), `raw_frame` `{user_id, text}`, `close_sockets`
/// `{user_id, code, reason?}`, `expire_tokens` (true), `kill_pubsub` (true: events stop until a
/// new socket connects), `reset` (true, applied first); the record and post fields of
/// ``DevPostFaultFields`` (`serve_record`, `drop_posts`, `hold_posts`, then the actions
/// `release_posts`, `repost`, `post_as`). Answers 204, or 200 with the actions' results
/// (`{released, reposted, posted_as}`, each only when asked).
/// `GET /_dev/health` answers `{"status":"ok"}`. `POST /_dev/users/{user_id}/devices` adds a
/// device to a user (``DevDeviceInjectionRoutes``).
struct DevAdminRoutes {
    let state: ServerState

    func register(on router: Router<DevRequestContext>) {
        router.get("_dev/health") { _, _ in Response.json(.object(["status": .string("ok")])) }
        DevDeviceInjectionRoutes(state: state).register(on: router)
        router.post("_dev/faults") { request, context in
            let body = try await request.jsonObject(context: context)
            let faults = state.faults
            if body["reset"]?.boolValue == true { await faults.reset() }
            if let fail = body["fail_next"], let count = fail["count"]?.intValue, let status = fail["status"]?.intValue {
                await faults.failNextRequests(count, status: status, plainText: fail["plain_text"]?.boolValue ?? false)
            }
            if let value = body["drop_after_frames"] { await faults.dropSockets(afterFrames: value.intValue) }
            if let seed = body["fault_seed"]?.intValue { await faults.seedRandomFaults(UInt64(bitPattern: Int64(seed))) }
            if let value = body["duplicate_events"].flatMap(Self.probability) { await faults.duplicateEvents(probability: value) }
            if let value = body["reorder_events"].flatMap(Self.probability) { await faults.reorderEvents(probability: value) }
            if let value = body["commit_delay_ms"] { await faults.delayCommits(upTo: value.intValue.map { .milliseconds($0) }) }
            if let value = body["tie_run_length"] { await faults.tieTimestamps(runLength: value.intValue) }
            if let value = body["hide_rows_posted_by"] { await faults.hideRows(postedBy: value.stringValue) }
            if let value = body["silent"]?.boolValue { await faults.goSilent(value) }
            if let value = body["delay_events_ms"] { await faults.delayEvents(by: value.intValue.map { .milliseconds($0) }) }
            if let value = body["refuse_upgrades"] {
                await faults.refuseUpgrades(status: value.intValue ?? value["status"]?.intValue, retryAfter: value["retry_after"]?.intValue)
            }
            if let value = body["ignore_client_frames"]?.boolValue { await faults.ignoreClientFrames(value) }
            if let value = body["drop_next_requests"]?.intValue { await faults.dropNextRequests(value) }
            if let raw = body["raw_frame"], let user = raw["user_id"]?.stringValue, let text = raw["text"]?.stringValue {
                await faults.sendRawFrame(text, toUser: user)
            }
            if let close = body["close_sockets"], let user = close["user_id"]?.stringValue, let code = close["code"]?.intValue {
                await faults.closeSockets(ofUser: user, code: code, reason: close["reason"]?.stringValue)
            }
            if let drop = body["drop_sockets"] {
                if drop.boolValue == true { await faults.dropOpenSockets() }
                if let user = drop["user_id"]?.stringValue { await faults.dropOpenSockets(ofUser: user) }
            }
            if body["kill_pubsub"]?.boolValue == true { await faults.killPubSub() }
            if body["expire_tokens"]?.boolValue == true { await faults.expireAccessTokens(issuedAtOrBefore: state.now) }
            let posts = DevPostFaultFields(faults: faults)
            try await posts.applySwitches(body)
            let results = try await posts.runActions(body)
            return results.isEmpty ? Response.noContent : Response.json(.object(results))
        }
    }

    /// A fault's share: a bool (all or none) or a number between 0 and 1.
    private static func probability(_ value: JSONValue) -> Double? {
        switch value {
        case .bool(let on): on ? 1 : 0
        case .int(let number): Double(number)
        case .double(let number): number
        default: nil
        }
    }
}
