import Foundation
import Testing

@testable import PostsFeature

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// URLSession's error codes, as a person reads them.
@Suite(.timeLimit(.minutes(2))) struct PostsClientFailureTests {
    @Test(arguments: [
        (URLError.Code.unknown, "could not reach h: the connection failed for an unknown reason (URL error -1)"),
        (.badServerResponse, "h answered, but the response is not valid HTTP"),
        (.httpTooManyRedirects, "h answered, but its redirects loop (too many redirects)"),
        (.badURL, "could not reach h: the URL is not valid"),
        (.unsupportedURL, "h answered, but it redirects to an unsupported URL (only http and https are followed)"),
        (.networkConnectionLost, "h answered, but the connection closed mid-response"),
        (.cannotConnectToHost, "could not reach h: connection refused"),
        (.timedOut, "could not reach h: timed out"),
        (.cannotFindHost, "could not reach h: host not found"),
        (.secureConnectionFailed, "could not reach h: the secure (TLS) connection failed"),
        (.serverCertificateUntrusted, "could not reach h: its certificate is not trusted"),
        (.zeroByteResource, "h answered, but the response is empty"),
        (.resourceUnavailable, "could not reach h: URL error -1008"),
    ])
    func codesBecomeWords(code: URLError.Code, description: String) {
        #expect(PostsClient.failure(URLError(code), host: "h").description == description)
    }
}
