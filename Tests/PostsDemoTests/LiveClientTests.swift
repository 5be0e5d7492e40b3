import Foundation
import PostsFeature
import Testing

extension ExternalProcessTests {
    /// The `live` client end to end, against a real HTTP server on loopback.
    @Suite(.timeLimit(.minutes(2))) struct LiveClientTests {
        let server: LoopbackServer

        init() throws {
            server = try LoopbackServer()
        }

        @Test func goodJSONDecodesToPosts() async throws {
            let result = await PostsClient.live(url: server.url("posts.json")).fetch()
            #expect(try result.get().map(\.title) == ["first post", "second post", "third post"])
        }

        @Test func malformedJSONIsADecodingError() async {
            let result = await PostsClient.live(url: server.url("malformed.json")).fetch()
            #expect(result == .failure(.decoding(path: "$", reason: "not valid JSON")))
        }

        @Test func theWrongShapeNamesThePath() async {
            let result = await PostsClient.live(url: server.url("wrong-shape.json")).fetch()
            #expect(result == .failure(.decoding(path: "$[0].id", reason: "expected Int")))
        }

        @Test func aMissingFileIsAnHTTPError() async {
            let result = await PostsClient.live(url: server.url("missing.json")).fetch()
            #expect(result == .failure(.http(status: 404, host: "127.0.0.1")))
        }

        @Test func aClosedPortIsATransportError() async {
            let url = URL(string: "http://127.0.0.1:\(closedLoopbackPort())/posts.json")!
            let result = await PostsClient.live(url: url, timeout: 5).fetch()
            #expect(result == .failure(.transport(host: "127.0.0.1", reason: "connection refused")))
        }
    }
}

extension ExternalProcessTests.LiveClientTests {
    @Test func aBodyThatTricklesInIsBoundedByTheTimeout() async {
        let start = ContinuousClock.now
        let result = await PostsClient.live(url: server.url("trickle"), timeout: 1.5).fetch()
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(
            result == .failure(.response(host: "127.0.0.1", reason: "the response did not finish within 1.5 s")))
    }

    @Test func aServerThatDoesNotAnswerInTimeIsNotReached() async {
        let result = await PostsClient.live(url: server.url("slow/posts.json"), timeout: 1).fetch()
        #expect(result == .failure(.transport(host: "127.0.0.1", reason: "no answer within 1 s")))
    }

    @Test func aConnectionClosedMidResponseSaysSo() async {
        let result = await PostsClient.live(url: server.url("cut"), timeout: 5).fetch()
        #expect(result == .failure(.response(host: "127.0.0.1", reason: "the connection closed mid-response")))
    }

    @Test func redirectLoopsAndRedirectsAwayFromHTTPSaySo() async {
        let loop = await PostsClient.live(url: server.url("loop"), timeout: 5).fetch()
        #expect(loop == .failure(.response(host: "127.0.0.1", reason: "its redirects loop (too many redirects)")))
        let ftp = await PostsClient.live(url: server.url("ftp"), timeout: 5).fetch()
        #expect(
            ftp
                == .failure(
                    .response(
                        host: "127.0.0.1",
                        reason: "it redirects to an unsupported URL (only http and https are followed)")))
    }
}
