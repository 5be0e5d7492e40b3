import Foundation

/// One line naming the machine: cores, operating system, Swift version.
enum MachineDescription {
    static var current: String {
        "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(operatingSystem), Swift \(swiftVersion)"
    }

    private static var operatingSystem: String {
        if let release = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8),
            let line = release.split(separator: "\n").first(where: { $0.hasPrefix("PRETTY_NAME=") })
        {
            return line.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return ProcessInfo.processInfo.operatingSystemVersionString
    }

    private static var swiftVersion: String {
        #if compiler(>=6.4)
            "6.4 or later"
        #elseif compiler(>=6.3)
            "6.3"
        #elseif compiler(>=6.2)
            "6.2"
        #elseif compiler(>=6.1)
            "6.1"
        #else
            "6.0"
        #endif
    }
}
