import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writing to standard output with write(2), so a failure (a full disk, a closed pipe) is an error
/// the program can report instead of a crash.
enum StandardOutput {
    /// Why the output could not be written, in the system's words.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Writes all of `text`, retrying after interruptions.
    ///
    /// - Throws: ``Failure`` with the system's reason when a write fails.
    static func write(_ text: String, to descriptor: Int32 = STDOUT_FILENO) throws(Failure) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { writeSome(descriptor, $0) }
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure(description: String(cString: strerror(errno)))
            }
            bytes = bytes.dropFirst(written)
        }
    }

    /// Writes a line to standard error; there is nowhere to report a failure of that.
    static func report(_ line: String) {
        try? write(line + "\n", to: STDERR_FILENO)
    }
}

/// write(2), as a free function: inside ``StandardOutput`` the name `write` is its own.
private func writeSome(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
    write(descriptor, bytes.baseAddress, bytes.count)
}
