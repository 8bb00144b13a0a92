import AsyncHTTPClient
import Foundation
import E2EEMessaging
import NIOCore
import NIOPosix

/// A request that got no answer, classified by what the client can know about it.
struct TransportFailure: Error {
    /// What is known about the request.
    enum Kind: Equatable {
        /// No connection was made: the server never saw the request.
        case notSent
        /// The connection closed before any answer (for instance a keep-alive connection the
        /// server closed): the request may or may not have been processed.
        case droppedUnanswered
        /// Anything else (timeouts included: the request may still be running).
        case other
    }

    let kind: Kind
    /// The error's type name (never its text: it could contain a URL with a query).
    let typeName: String

    /// Classifies an error thrown by AsyncHTTPClient.
    init(_ error: any Error) {
        typeName = String(describing: type(of: error))
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout, .getConnectionFromPoolTimeout: kind = .notSent
            case .remoteConnectionClosed: kind = .droppedUnanswered
            default: kind = .other
            }
        } else if error is NIOConnectionError {
            kind = .notSent
        } else if let error = error as? ChannelError, error == .ioOnClosedChannel || error == .eof {
            kind = .droppedUnanswered
        } else if let error = error as? IOError, [ECONNRESET, EPIPE].contains(error.errnoCode) {
            // Closed with unread data (our request still in the server's buffer): a reset.
            kind = .droppedUnanswered
        } else {
            kind = .other
        }
    }

    /// Whether one retry on another connection is safe: always when the request was never sent;
    /// when it was dropped unanswered, only if repeating it cannot do harm (`repeatable`).
    func allowsRetry(repeatable: Bool) -> Bool {
        switch kind {
        case .notSent: true
        case .droppedUnanswered: repeatable
        case .other: false
        }
    }

    /// The error the caller sees.
    var serverError: ServerError { .transport(kind == .droppedUnanswered ? "\(typeName) (closed unanswered)" : typeName) }
}
