import E2EEMessaging

/// One transfer as the tool prints it (`transfer status`, the progress line of `link start` and
/// `link accept`): `<id> sending to <device> phase 1: 120/300 records, running`, or with
/// `--json` one object.
struct TransferLine: Encodable, Equatable {
    let id: String
    /// `sending` or `receiving`.
    let direction: String
    /// The other device.
    let device: String
    let phase: Int
    let recordsDone: Int
    let recordsExpected: Int?
    /// `running`, `failed`, `cancelled` or `done`.
    let state: String
    /// Why it failed.
    let reason: String?

    enum CodingKeys: String, CodingKey {
        case id, direction, device, phase, state, reason
        case recordsDone = "records_done", recordsExpected = "records_expected"
    }

    init(_ progress: TransferProgress) {
        id = progress.id
        switch progress.direction {
        case .sending(let device): (direction, self.device) = ("sending", device.rawValue)
        case .receiving(let device): (direction, self.device) = ("receiving", device.rawValue)
        }
        phase = progress.phase
        recordsDone = progress.recordsDone
        recordsExpected = progress.recordsExpected
        switch progress.state {
        case .running: (state, reason) = ("running", nil)
        case .done: (state, reason) = ("done", nil)
        case .cancelled: (state, reason) = ("cancelled", nil)
        case .failed(let why): (state, reason) = ("failed", why)
        }
    }

    /// The line.
    var text: String {
        let preposition = direction == "sending" ? "to" : "from"
        let expected = recordsExpected.map(String.init) ?? "?"
        return "\(id) \(direction) \(preposition) \(device) phase \(phase): \(recordsDone)/\(expected) records, \(state)"
            + (reason.map { " (\($0))" } ?? "")
    }
}
