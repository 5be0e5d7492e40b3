import CacheStore
import Foundation
import PostsFeature

let arguments: DemoArguments
do {
    arguments = try DemoArguments.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    StandardOutput.report("PostsDemo: \(error)\n\n\(DemoArguments.usage)")
    exit(64)
}
if arguments.help {
    do {
        try StandardOutput.write(DemoArguments.usage + "\n")
    } catch {
        StandardOutput.report("PostsDemo: cannot write the output: \(error)")
        exit(1)
    }
    exit(0)
}

let client = arguments.url.map { PostsClient.live(url: $0, timeout: arguments.timeout) } ?? .sample()
let store =
    arguments.stateFolder.map {
        Store(
            initialValues: [.pageSize: 10], actionHandler: appHandler, dependency: client,
            persistence: postsPersistence(folder: $0))
    } ?? Store(initialValues: [.pageSize: 10], actionHandler: appHandler, dependency: client)
/// Writes the persistence errors after the first `reported` ones, one line each; returns how many
/// there are.
func reportPersistenceErrors(after reported: Int = 0) -> Int {
    let errors = store.persistenceErrors
    for error in errors.dropFirst(reported) {
        StandardOutput.report("PostsDemo: \(TerminalText.sanitized(error.description))")
    }
    return errors.count
}
let reportedAtLaunch = reportPersistenceErrors()

if arguments.once || !Terminal.isInteractive {
    let status = await OnceRun.run(store)
    await store.flush()
    _ = reportPersistenceErrors(after: reportedAtLaunch)
    exit(status)
}
await InteractiveApp(store: store, source: client.sourceDescription).run()
await store.flush()
_ = reportPersistenceErrors(after: reportedAtLaunch)
