import Foundation
import Testing

extension ExternalProcessTests {
    /// The built `PostsDemo` binary, run as a user would: its output, errors and exit status.
    @Suite(.timeLimit(.minutes(2))) struct DemoBinaryTests {
        let server: LoopbackServer

        init() throws {
            server = try LoopbackServer()
        }

        @Test func theSampleSourcePrintsOnePostALine() throws {
            let run = try DemoRun(["--once"])
            let lines = run.output.split(separator: "\n")
            #expect(run.status == 0)
            #expect(lines.count == 100)
            #expect(lines.first?.hasPrefix("#1 ") == true)
            #expect(lines.last?.hasPrefix("#100 ") == true)
            #expect(run.errors.isEmpty)
        }

        @Test func outputThatIsNotATerminalMeansOnce() throws {
            // Standard output is a pipe here. (The loopback server answers at once, where the sample
            // source waits 0.6 s.)
            let run = try DemoRun(["--url", server.url("posts.json").absoluteString])
            #expect(run.status == 0)
            #expect(run.output.split(separator: "\n").count == 3)
        }

        @Test func aURLIsFetchedOverHTTP() throws {
            let run = try DemoRun(["--url", server.url("posts.json").absoluteString, "--once"])
            #expect(run.status == 0)
            #expect(run.output == "#1 first post\n#2 second post\n#3 third post\n")
        }

        @Test func escapeSequencesInTitlesNeverReachTheTerminal() throws {
            let run = try DemoRun(["--url", server.url("escapes.json").absoluteString, "--once"])
            #expect(run.status == 0)
            #expect(run.output == "#7 red title ok\n")
            #expect(!run.output.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        }

        @Test func aFailedFetchPrintsTheReasonAndFails() throws {
            let malformed = try DemoRun(["--url", server.url("malformed.json").absoluteString, "--once"])
            #expect(malformed.status == 1)
            #expect(malformed.output.isEmpty)
            #expect(malformed.errors == "error: the response is not a list of posts (at $): not valid JSON\n")

            let missing = try DemoRun(["--url", server.url("missing.json").absoluteString, "--once"])
            #expect(missing.status == 1)
            #expect(missing.errors == "error: 127.0.0.1 answered HTTP 404\n")

            let closed = try DemoRun(["--url", "http://127.0.0.1:\(closedLoopbackPort())/posts.json", "--once"])
            #expect(closed.status == 1)
            #expect(closed.errors == "error: could not reach 127.0.0.1: connection refused\n")
        }

        @Test func helpAndBadOptions() throws {
            let help = try DemoRun(["--help"])
            #expect(help.status == 0)
            #expect(help.output.hasPrefix("usage: PostsDemo"))

            let unknown = try DemoRun(["--frobnicate"])
            #expect(unknown.status == 64)
            #expect(unknown.errors.hasPrefix("PostsDemo: unknown option --frobnicate\n\nusage: PostsDemo"))

            let badURL = try DemoRun(["--url", "ftp://example.com"])
            #expect(badURL.status == 64)
            #expect(badURL.errors.hasPrefix("PostsDemo: --url needs an http or https URL"))
        }

        @Test(arguments: ["inf", "1e300", "nan", "0", "-1", "86401", "ten"])
        func aTimeoutThatIsNotAUsableNumberOfSecondsIsRefused(timeout: String) throws {
            let run = try DemoRun(["--url", server.url("posts.json").absoluteString, "--timeout", timeout, "--once"])
            #expect(run.status == 64)
            #expect(run.errors.hasPrefix("PostsDemo: --timeout needs a number of seconds from 0.001 to 86400\n"))
        }

        @Test func aFullDiskIsOneLineAndAFailure() throws {
            let stateHome = DemoStateHome()
            defer { stateHome.remove() }
            let run = try Subprocess.run(
                "/bin/sh", ["-c", "'\(DemoRun.binary.path)' --once --url '\(server.url("posts.json"))' > /dev/full"],
                environment: stateHome.environment)
            #expect(run.status == 1)
            #expect(run.errors == "PostsDemo: cannot write the output: No space left on device\n")
        }

        @Test func theTimeoutBoundsABodyThatTricklesIn() throws {
            let start = ContinuousClock.now
            let run = try DemoRun(["--url", server.url("trickle").absoluteString, "--timeout", "3", "--once"])
            #expect(ContinuousClock.now - start < .seconds(10))
            #expect(run.status == 1)
            #expect(run.errors == "error: 127.0.0.1 answered, but the response did not finish within 3 s\n")
        }
    }
}

/// One run of the built binary, to completion.
struct DemoRun {
    var output: String
    var errors: String
    var status: Int32

    /// The `PostsDemo` binary beside the test bundle, in the same build folder.
    static var binary: URL {
        Bundle.module.bundleURL.deletingLastPathComponent().appendingPathComponent("PostsDemo")
    }

    /// Runs the demo with `arguments`, remembering its state in a state folder of its own, under the
    /// temporary folder, removed after it: no run shares another's, nor the user's.
    init(_ arguments: [String]) throws {
        let stateHome = DemoStateHome()
        defer { stateHome.remove() }
        let result = try Subprocess.run(Self.binary.path, arguments, environment: stateHome.environment)
        (output, errors, status) = (result.output, result.errors, result.status)
    }
}

/// An `XDG_STATE_HOME` of a demo run's own, under the temporary folder: a test run of the demo
/// never writes the user's state folder, nor remembers another run's.
struct DemoStateHome {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("PostsDemoTests-state-\(UUID())")

    var environment: [String: String] { ["XDG_STATE_HOME": url.path] }

    /// `command`, run with this state home.
    func prefixing(_ command: String) -> String { "env XDG_STATE_HOME='\(url.path)' \(command)" }

    func remove() { try? FileManager.default.removeItem(at: url) }
}
