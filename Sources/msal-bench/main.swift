import Foundation
import MSALNative

// msal-bench: prints one JSON object per scenario and client on stdout, and a summary on stderr.
// Usage: msal-bench [--runs N] [--scenario NAME]

var runs = 2000
var only: String?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--runs":
        runs = arguments.next().flatMap(Int.init) ?? runs
    case "--scenario":
        only = arguments.next()
    case "--help", "-h":
        print("usage: msal-bench [--runs N] [--scenario transport_roundtrip]")
        exit(0)
    default:
        FileHandle.standardError.write(Data("unknown argument \(argument)\n".utf8))
        exit(2)
    }
}

FileHandle.standardError.write(Data("\(NativeLibraries.curlVersion); \(NativeLibraries.openSSLVersion)\n".utf8))

if only == nil || only == "transport_roundtrip" {
    let results = try await TransportRoundTrip.run(runs: runs)
    for result in results { print(result.jsonLine()) }
    if results.count == 2, results[1].median > 0 {
        let ratio = Double(results[0].median) / Double(results[1].median)
        let summary = String(
            format: "transport_roundtrip: transport %.1f us, floor %.1f us, ratio %.3f (target <= 1.15)\n",
            Double(results[0].median) / 1000,
            Double(results[1].median) / 1000,
            ratio
        )
        FileHandle.standardError.write(Data(summary.utf8))
    }
}
