/// Where one link transfer stands on this device (docs/spec/protocol.md §11.6), from
/// ``Account/transfers()`` and on ``LinkEvent/transfer(_:)``.
public struct TransferProgress: Sendable, Equatable, Hashable {
    /// Which end this device is.
    public enum Direction: Sendable, Equatable, Hashable {
        /// This primary sends to the granted device.
        case sending(to: DeviceID)
        /// This new device receives from its primary.
        case receiving(from: DeviceID)
    }

    /// How the transfer runs.
    public enum State: Sendable, Equatable, Hashable {
        /// Sending or receiving (resumed after a restart).
        case running
        /// Failed for this reason (a timeout, a count or digest mismatch, the other side's
        /// cancel); the user retries from the primary.
        case failed(String)
        /// Cancelled by the user on this device.
        case cancelled
        /// Complete on this side.
        case done
    }

    /// The transfer's id (lower-case UUID text), as the grant named it.
    public let id: String
    /// Which end this device is.
    public let direction: Direction
    /// The phase in progress: 1 (the snapshot) or 2 (what changed since).
    public let phase: Int
    /// Records acknowledged (sending) or held (receiving), both phases.
    public let recordsDone: Int
    /// Records the manifests announced so far (`nil` before manifest 1).
    public let recordsExpected: Int?
    /// How it runs.
    public let state: State

    /// A progress report of these values.
    public init(id: String, direction: Direction, phase: Int, recordsDone: Int, recordsExpected: Int?, state: State) {
        self.id = id
        self.direction = direction
        self.phase = phase
        self.recordsDone = recordsDone
        self.recordsExpected = recordsExpected
        self.state = state
    }
}
