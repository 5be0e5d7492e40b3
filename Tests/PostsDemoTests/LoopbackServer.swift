import Foundation

/// A real HTTP server on 127.0.0.1 serving the test fixtures, and paths that misbehave on purpose
/// (`Fixtures/loopback_server.py`: slow, trickling, cut short, redirect loops), on a free port,
/// started by the test and stopped when released.
final class LoopbackServer: @unchecked Sendable {
    let port: Int
    private let process: Subprocess

    /// The folder of fixture files the server serves.
    static var fixtures: URL {
        Bundle.module.url(forResource: "Fixtures", withExtension: nil)!
    }

    init() throws {
        let script = Self.fixtures.appendingPathComponent("loopback_server.py").path
        process = try Subprocess("python3", ["-u", script, Self.fixtures.path])
        // python prints "Serving HTTP on 127.0.0.1 port 43567 (http://127.0.0.1:43567/) ..."
        var text = ""
        while !text.contains(") ...") {
            let chunk = process.readOutputChunk()
            guard !chunk.isEmpty else { break }
            text += chunk
        }
        guard let range = text.range(of: #"port (\d+)"#, options: .regularExpression),
            let port = Int(text[range].dropFirst("port ".count))
        else {
            process.kill()
            throw SubprocessError(description: "the server did not say its port: \(text)")
        }
        self.port = port
    }

    /// Stops the server (it is killed and reaped at once).
    deinit {
        process.kill()
    }

    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)/\(path)")!
    }
}

/// A loopback port nothing listens on: one a server listened on, after it stopped.
func closedLoopbackPort() -> Int {
    let port = (try? LoopbackServer())?.port ?? 9  // the server stops when released here
    Thread.sleep(forTimeInterval: 0.2)  // let it close its socket
    return port
}
