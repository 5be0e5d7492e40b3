import Foundation
import Testing

@testable import CacheStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A durable file is replaced whole: its reader sees the old bytes or the new, after a failure and
/// after a process killed at any instant; the temporary files of dead processes are removed.
@Suite(.timeLimit(.minutes(5))) struct DurableFileTests {
    /// A folder of its own under the system's temporary folder, removed when `body` returns.
    static func inTemporaryFolder<Result>(_ body: (URL) throws -> Result) throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "DurableFileTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try body(folder)
    }

    static func files(in folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    @Test func aReplacementIsReadBackWholeAndLeavesNoTemporaryFile() throws {
        try Self.inTemporaryFolder { folder in
            let file = DurableFile(url: folder.appendingPathComponent("settings.json"))
            #expect(try file.contents() == nil, "no file: nothing, and no file made")
            #expect(Self.files(in: folder) == [])
            try file.replace(with: Data("first".utf8))
            try file.replace(with: Data("second, longer".utf8))
            try file.replace(with: Data())
            try file.replace(with: Data("third".utf8))
            #expect(try file.contents() == Data("third".utf8))
            #expect(Self.files(in: folder) == ["settings.json"])
        }
    }

    @Test func aReplacementThatCannotBeginNamesTheStepAndThePathAndKeepsTheOldFile() throws {
        try Self.inTemporaryFolder { folder in
            let missing = DurableFile(url: folder.appendingPathComponent("absent/settings.json"))
            #expect {
                try missing.replace(with: Data("x".utf8))
            } throws: { error in
                let description = "\(error)"
                return description.hasPrefix("could not create a temporary file \(folder.path)/absent/")
                    && description.contains("No such file or directory") && description.contains("(errno \(ENOENT))")
            }
        }
    }

    @Test func aRenameOverAFolderFailsKeepingTheFolderAndLeavingNoTemporaryFile() throws {
        try Self.inTemporaryFolder { folder in
            let path = folder.appendingPathComponent("settings.json")
            try FileManager.default.createDirectory(at: path, withIntermediateDirectories: false)
            try Data("inside".utf8).write(to: path.appendingPathComponent("keep"))
            let file = DurableFile(url: path)
            #expect {
                try file.replace(with: Data("x".utf8))
            } throws: { error in
                "\(error)".hasPrefix("could not rename the temporary file over \(path.path): ")
            }
            #expect(Self.files(in: folder) == ["settings.json"])
            #expect(Self.files(in: path) == ["keep"])
            #expect {
                try file.contents()
            } throws: { error in
                "\(error)".hasPrefix("could not read \(path.path): ") && "\(error)".contains("(errno \(EISDIR))")
            }
        }
    }

    @Test func onlyTheTemporaryFilesOfRunsThatEndedAreRemoved() throws {
        try Self.inTemporaryFolder { folder in
            let file = DurableFile(url: folder.appendingPathComponent("settings.json"))
            let ended = Process()
            ended.executableURL = URL(fileURLWithPath: "/bin/sh")
            ended.arguments = ["-c", "exit 0"]
            try ended.run()
            ended.waitUntilExit()
            let names = [
                ".settings.json.durable-\(ended.processIdentifier)-5-1",  // its process ended: removed
                ".settings.json.durable-\(getpid())-\(DurableFile.run &+ 1)-6",  // an earlier run's, same id: removed
                ".settings.json.durable-\(getpid())-\(DurableFile.run)-2",  // this process's: it may be writing it
                ".settings.json.durable-1-5-3",  // init's: alive
                ".other.json.durable-\(ended.processIdentifier)-5-4",  // another file's
                "settings.json",
            ]
            for name in names { try Data().write(to: folder.appendingPathComponent(name)) }
            let removed = file.removeAbandonedTemporaryFiles()
            #expect(Set(removed.map(\.lastPathComponent)) == Set(names[0...1]))
            #expect(Self.files(in: folder) == names.dropFirst(2).sorted())
        }
    }

    /// The folder a killed child process writes in: named after the test process, its parent.
    static func crashFolder(parent: pid_t) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("DurableFileCrash-\(parent)")
    }

    /// Version `version` of the crash test's file: 64 KiB, its number first, every byte derived from it.
    static func contents(ofVersion version: UInt64) -> Data {
        var data = withUnsafeBytes(of: version.littleEndian) { Data($0) }
        data.append(contentsOf: (0..<65_536).map { UInt8(truncatingIfNeeded: UInt64($0) &* 31 &+ version) })
        return data
    }

    /// The version number a crash test's file starts with, or `nil` for a file too short to hold one.
    static func version(of data: Data) -> UInt64? {
        guard data.count >= 8 else { return nil }
        return data.prefix(8).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
    }

    /// A child process replaces the file with version after version and is killed (SIGKILL) at a
    /// random instant; the file then holds a whole version, never a mix, and the temporary file it
    /// left is removed as abandoned. `swift test` kills 2 children; the full soak 200.
    @Test func aProcessKilledWhileReplacingLeavesAWholeVersion() async throws {
        let folder = Self.crashFolder(parent: getpid())
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = DurableFile(url: folder.appendingPathComponent("state.bin"))
        var lastVersion: UInt64 = 0
        for _ in 0..<(Soak.isFull ? 200 : 2) {
            await #expect(processExitsWith: .signal(SIGKILL)) {
                let file = DurableFile(
                    url: DurableFileTests.crashFolder(parent: getppid()).appendingPathComponent("state.bin"))
                let start = try file.contents().flatMap(DurableFileTests.version(of:)) ?? 0
                // The kill comes at a random instant after the first replacement, however slow the
                // machine: each child replaces at least once.
                var killerStarted = false
                let killer = Thread {
                    usleep(UInt32.random(in: 1_000...40_000))
                    kill(getpid(), SIGKILL)
                }
                for version in (start + 1)... {
                    try file.replace(with: DurableFileTests.contents(ofVersion: version))
                    if !killerStarted {
                        killer.start()
                        killerStarted = true
                    }
                }
            }
            let data = try #require(try file.contents(), "the file is gone")
            let version = try #require(Self.version(of: data), "the file is torn: \(data.count) bytes")
            #expect(data == Self.contents(ofVersion: version), "version \(version) is torn")
            #expect(version >= lastVersion)
            lastVersion = version
            file.removeAbandonedTemporaryFiles()
            #expect(Self.files(in: folder) == ["state.bin"])
        }
        #expect(lastVersion > 0, "the children wrote no version")
    }
}
