import Hummingbird

/// An error answer in the reference server's shapes: `{"detail": "<text>"}`, a 422 with a list
/// of validation problems, or a plain-text body (the reference server's unhandled 500s).
struct APIError: HTTPResponseError {
    let status: HTTPResponse.Status
    let body: Body
    var headers: HTTPFields = [:]

    enum Body {
        case json(JSONValue)
        case plainText(String)
    }

    /// `{"detail": detail}` with `status`.
    static func detail(_ status: HTTPResponse.Status, _ detail: String) -> APIError {
        APIError(status: status, body: .json(.object(["detail": .string(detail)])))
    }

    /// A 422 whose `detail` lists one problem at `location` (e.g. `["body", "username"]`).
    static func validation(_ location: [String], _ message: String, type: String = "value_error") -> APIError {
        let problem: JSONValue = .object([
            "loc": .array(location.map(JSONValue.string)),
            "msg": .string(message),
            "type": .string(type),
        ])
        return APIError(status: .unprocessableContent, body: .json(.object(["detail": .array([problem])])))
    }

    /// The reference server's plain-text 500.
    static func internalError() -> APIError {
        APIError(status: .internalServerError, body: .plainText("Internal Server Error"))
    }

    static let notFound = detail(.notFound, "Not found")
    static let forbidden = detail(.forbidden, "Not a member of this channel")
    static let invalidCredentials = detail(.unauthorized, "Could not validate credentials")

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var fields = headers
        switch body {
        case .json(let value):
            fields[.contentType] = "application/json"
            return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: value.text)))
        case .plainText(let text):
            fields[.contentType] = "text/plain; charset=utf-8"
            return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: text)))
        }
    }
}
