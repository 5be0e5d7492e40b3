import Foundation
import Testing

extension ExternalProcessTests {
    /// The interactive mode in a real terminal: tmux runs the binary, keys are typed with `send-keys`,
    /// the screen is read with `capture-pane`.
    @Suite(.enabled(if: Tmux.isAvailable, "needs tmux"), .timeLimit(.minutes(2)))
    struct InteractiveModeTests {
        @Test func keysDriveTheScreenAndQQuits() throws {
            let tmux = try Tmux(running: DemoRun.binary.path, rows: 16, columns: 70)
            let loaded = try tmux.waitForScreen { $0.contains("page 1/10") }
            #expect(loaded.contains("#1  "))
            #expect(loaded.contains("r refresh · c cancel · n/p page · u user · q quit"))

            try tmux.send("n")
            #expect(try tmux.waitForScreen { $0.contains("page 2/10") }.contains("#12  "))

            try tmux.send("u")
            #expect(try tmux.waitForScreen { $0.contains("10 posts · user 1") }.contains("page 1/1"))

            try tmux.send("r")
            try tmux.send("c")
            #expect(try tmux.waitForScreen { $0.contains("page 1/1 · 10 posts · user 1") }.contains("#10  "))

            try tmux.send("q")
            #expect(try tmux.waitUntilExited())
        }
    }
}
