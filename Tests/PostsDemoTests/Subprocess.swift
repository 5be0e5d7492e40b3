import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process started with `posix_spawn` and reaped with `waitpid`.
///
/// Foundation's `Process.waitUntilExit` can spin forever on Linux when it misses a child's exit
/// (seen here with test suites running in parallel), so the demo's tests manage processes directly.
struct Subprocess {
    let pid: pid_t
    private let output: Int32?
    private let errors: Int32?

    /// What a finished process printed, and its exit status.
    struct Result {
        var output: String
        var errors: String
        var status: Int32
    }

    /// Starts `executable` with `arguments`, and this process's environment with `environment`'s
    /// variables set; standard input is empty. With `capturing`, standard output and error are kept
    /// for ``finish()``; otherwise they are discarded.
    init(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], capturing: Bool = true
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var pipes: [(read: Int32, write: Int32)] = []
        for target in [Int32(1), 2] {
            if capturing {
                var ends: [Int32] = [0, 0]
                guard pipe(&ends) == 0 else { throw SubprocessError(description: "pipe failed") }
                pipes.append((ends[0], ends[1]))
                posix_spawn_file_actions_adddup2(&actions, ends[1], target)
                posix_spawn_file_actions_addclose(&actions, ends[0])
                posix_spawn_file_actions_addclose(&actions, ends[1])
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            }
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { _, set in set }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for variable in envp { free(variable) } }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, executable, &actions, nil, argv, envp)
        for ends in pipes { close(ends.write) }
        guard result == 0 else { throw SubprocessError(description: "could not start \(executable): \(result)") }
        self.pid = pid
        self.output = pipes.first?.read
        self.errors = pipes.last?.read
    }

    /// Runs to completion and returns what it printed and its status.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        try Subprocess(executable, arguments, environment: environment).finish()
    }

    /// Reads everything the process prints, then waits for it to exit.
    func finish() -> Result {
        let output = self.output.map(Self.readAll) ?? ""
        let errors = self.errors.map(Self.readAll) ?? ""
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Result(output: output, errors: errors, status: exitStatus)
    }

    /// Stops the process at once and reaps it.
    func kill() {
        forceStop(pid)
        _ = finish()
    }

    /// Reads the next chunk of standard output, waiting for it; empty at the end.
    func readOutputChunk() -> String {
        guard let output else { return "" }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(output, &buffer, buffer.count)
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : ""
    }

    private static func readAll(_ descriptor: Int32) -> String {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count > 0 {
                data += buffer[..<count]
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        close(descriptor)
        return String(decoding: data, as: UTF8.self)
    }
}

/// `kill(2)` with SIGKILL; a free function, as `Subprocess.kill()` hides the C function's name.
private func forceStop(_ pid: pid_t) {
    kill(pid, SIGKILL)
}

struct SubprocessError: Error, CustomStringConvertible {
    var description: String
}
