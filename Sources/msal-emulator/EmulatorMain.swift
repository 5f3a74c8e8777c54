import Dispatch
import Foundation
import MSALTestSupport

/// `msal-emulator [--port N]`: starts an Entra emulator, prints its URLs and CA path, and runs
/// until SIGINT or SIGTERM.
@main
enum EmulatorMain {
    static func main() {
        var configuration = EntraEmulator.Configuration()
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let index = arguments.firstIndex(of: "--port"), index + 1 < arguments.count {
            guard let port = Int(arguments[index + 1]), (0...65535).contains(port) else {
                FileHandle.standardError.write(Data("msal-emulator: --port needs a number from 0 to 65535\n".utf8))
                exit(2)
            }
            configuration.port = port
        } else if !arguments.isEmpty {
            FileHandle.standardError.write(Data("usage: msal-emulator [--port N]\n".utf8))
            exit(2)
        }
        let emulator: EntraEmulator
        do {
            emulator = try EntraEmulator(configuration: configuration)
        } catch {
            FileHandle.standardError.write(Data("msal-emulator: \(error)\n".utf8))
            exit(1)
        }
        // Written unbuffered, so a parent process reading a pipe sees the URLs at once.
        FileHandle.standardOutput.write(Data("\(emulator.summary)\nPress Ctrl-C to stop.\n".utf8))
        let done = DispatchSemaphore(value: 0)
        var sources: [DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { @Sendable in done.signal() }
            source.resume()
            sources.append(source)
        }
        done.wait()
        emulator.stop()
        FileHandle.standardOutput.write(Data("Emulator stopped.\n".utf8))
        withExtendedLifetime(sources) {}
    }
}
