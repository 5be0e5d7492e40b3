import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension PostsClient {
    /// Fetches the posts at `url` over HTTP(S) with URLSession.
    ///
    /// A status outside 200–299, a transport error (no network, refused, no answer in time), an
    /// answer that fails (cut short, too slow, redirects in a loop) and JSON that does not decode to
    /// posts each become a ``PostsError`` that says which, in words, with the host.
    ///
    /// - Parameters:
    ///   - url: Where the posts are, for example `https://jsonplaceholder.typicode.com/posts`.
    ///   - timeout: How long the whole request may take, in seconds, the answer's body included.
    public static func live(url: URL, timeout: TimeInterval = 10) -> PostsClient {
        let host = url.host ?? url.absoluteString
        return PostsClient(sourceDescription: url.absoluteString) {
            let data: Data
            let response: URLResponse
            switch await LiveRequest.get(url, timeout: timeout) {
            case .answered(let answer, let answeredWith):
                (data, response) = (answer, answeredWith)
            case .timedOut(let answered):
                let limit = "within \(timeout.formatted(.number.grouping(.never))) s"
                return .failure(
                    answered
                        ? .response(host: host, reason: "the response did not finish \(limit)")
                        : .transport(host: host, reason: "no answer \(limit)"))
            case .failed(let error, _):
                return .failure(failure(error, host: host))
            }
            if let status = (response as? HTTPURLResponse)?.statusCode, !(200..<300).contains(status) {
                return .failure(.http(status: status, host: host))
            }
            do {
                return .success(try JSONDecoder().decode([Post].self, from: data))
            } catch let error as DecodingError {
                return .failure(decodingFailure(error))
            } catch {
                return .failure(.decoding(path: "$", reason: "\(error)"))
            }
        }
    }

    private static func decodingFailure(_ error: DecodingError) -> PostsError {
        func path(_ context: DecodingError.Context) -> String {
            "$" + context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
        }
        switch error {
        case .dataCorrupted(let context):
            return .decoding(path: path(context), reason: "not valid JSON")
        case .keyNotFound(let key, let context):
            return .decoding(path: path(context), reason: "no \"\(key.stringValue)\"")
        case .typeMismatch(let type, let context):
            return .decoding(path: path(context), reason: "expected \(type)")
        case .valueNotFound(let type, let context):
            return .decoding(path: path(context), reason: "expected \(type), found null")
        @unknown default:
            return .decoding(path: "$", reason: "\(error)")
        }
    }
}
