import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension PostsClient {
    /// The error a person can act on for a failed request to `host`: URLSession's codes in words.
    ///
    /// - Parameters:
    ///   - error: What URLSession reported.
    ///   - host: The host asked.
    /// - Returns: ``PostsError/response(host:reason:)`` when the server answered (or redirected),
    ///   ``PostsError/transport(host:reason:)`` when it could not be reached.
    static func failure(_ error: any Error, host: String) -> PostsError {
        guard let error = error as? URLError else {
            return .transport(host: host, reason: error.localizedDescription)
        }
        if let reason = answerFailure(error.code) {
            return .response(host: host, reason: reason)
        }
        return .transport(host: host, reason: reachFailure(error.code))
    }

    /// Why an answer that came could not be used, or nil when the code is about reaching the host.
    private static func answerFailure(_ code: URLError.Code) -> String? {
        switch code {
        case .networkConnectionLost: "the connection closed mid-response"
        case .badServerResponse, .cannotParseResponse: "the response is not valid HTTP"
        case .httpTooManyRedirects: "its redirects loop (too many redirects)"
        case .redirectToNonExistentLocation: "it redirects to no location"
        case .unsupportedURL: "it redirects to an unsupported URL (only http and https are followed)"
        case .zeroByteResource: "the response is empty"
        case .dataLengthExceedsMaximum: "the response is too large"
        case .cannotDecodeRawData, .cannotDecodeContentData: "the response's encoding cannot be decoded"
        default: nil
        }
    }

    private static func reachFailure(_ code: URLError.Code) -> String {
        switch code {
        case .cannotConnectToHost: "connection refused"
        case .timedOut: "timed out"
        case .notConnectedToInternet: "no network"
        case .cannotFindHost, .dnsLookupFailed: "host not found"
        case .badURL: "the URL is not valid"
        case .cancelled: "cancelled"
        case .secureConnectionFailed: "the secure (TLS) connection failed"
        case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
            .serverCertificateHasUnknownRoot:
            "its certificate is not trusted"
        case .unknown: "the connection failed for an unknown reason (URL error -1)"
        default: "URL error \(code.rawValue)"
        }
    }
}
