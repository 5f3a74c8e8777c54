import Foundation
import MSAL

/// `msal rest`: calls an API with a bearer token for the signed-in account (as `az rest`), through
/// the library's transport (``MSALPublicClientApplication/callProtectedResource(_:authorizationHeader:)``).
enum RestCommand {
    static let command = ToolCommand(
        name: "rest", summary: "call an API with a bearer token for the signed-in account",
        help: """
            usage: msal rest [--method M] [--body TEXT | --body @FILE] [--header "Name: value"]...
                             [--scope S | --resource URI] [--account ID_OR_USERNAME] [-o text|json|none]
                             [--max-response-size BYTES] [--allow-loopback-http] [--timeout SECONDS]
                             --client-id ID [--authority URL | --tenant T] [--cache FILE] [--ca-file PEM] URL

            Calls URL with "Authorization: Bearer <token>" for the account (silently: cache or refresh
            token), and prints the response body on standard output as received, the status line
            ("HTTP 200") on standard error:

              msal rest https://graph.microsoft.com/v1.0/me
              msal rest --method POST --body @message.json https://graph.microsoft.com/v1.0/me/sendMail
              msal rest --method HEAD -o json https://graph.microsoft.com/v1.0/me/drive/root

            The token's scope is --scope or --resource when given; else the URL's well-known resource
            (graph.microsoft.com: https://graph.microsoft.com/.default; management.azure.com:
            https://management.azure.com/.default); else what the API's OAuth 2.0 Protected Resource
            Metadata (RFC 9728) names. When none says, it is a usage error: pass --scope.

            When the API answers 401 with a claims challenge (Continuous Access Evaluation, Conditional
            Access), a new token with the claims is requested and the call made once more; never twice.

            The token goes only to URL's origin: https only, redirections not followed (a 3xx is
            printed as it is), never retried. Exit codes: 0 for a 2xx status; 8 for any other status
            (the body is still printed; 7 for 429); 3, 4, 124 as for `msal token` (see Docs/CLI.md).

            Options:
              --method M         GET (default), HEAD, POST, PUT, PATCH or DELETE. A HEAD answer has no
                                 body: -o json shows its status and headers
              --body TEXT        the request body; @FILE reads it from a file. Sent with
                                 Content-Type: application/json when it is JSON and no --header names one
              --header "Name: value"
                                 a request header; repeatable. Not Authorization, Host or framing headers
              --scopes "a b"     the token's scopes (--scope is the same)
              --resource URI     the API the token is for: its scope URI/.default (Entra ID, B2C, CIAM),
                                 or the RFC 8707 resource indicator beside --scopes (AD FS, OpenID
                                 Connect authorities), as for `msal token`
              --account ID_OR_USERNAME
                                 the account; by default the only one signed in, or the default one
              -o, --output FORMAT
                                 text: the body as received (default; on a terminal, control characters
                                 are shown escaped); json: {status, headers, body} with the body as JSON
                                 when it is JSON, else as a string; none: nothing (the exit code tells)
              --max-response-size BYTES
                                 the largest response body accepted (default 16777216, 16 MiB)
              --allow-loopback-http
                                 allow a plain http URL on 127.0.0.1, ::1 or localhost (a local server)

            \(ApplicationOptions.help)
            """,
        specification: ApplicationOptions.specification.adding(OutputFormat.specification).adding(
            .init(
                valueOptions: ["method", "body", "header", "scopes", "resource", "account", "max-response-size"],
                flagOptions: ["allow-loopback-http"])),
        acceptsArguments: true,
        run: run)

    /// The methods `--method` takes.
    static let methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]

    /// The default of `--max-response-size`: 16 MiB.
    static let defaultMaximumResponseSize = 16 << 20

    /// APIs whose resource the URL's host tells (as Azure CLI's `az rest` knows them).
    static let wellKnownResources: [String: String] = [
        "graph.microsoft.com": "https://graph.microsoft.com",
        "management.azure.com": "https://management.azure.com",
    ]

    /// Where the token's scopes come from.
    enum ScopeSource: Equatable {
        /// `--scopes` or `--resource`.
        case given([String])
        /// The URL's host is a well-known API: its `/.default` scope.
        case wellKnown([String])
        /// Nothing says: ask the API's RFC 9728 metadata.
        case resourceMetadata
    }

    /// The source of the scopes for `url`, given the scopes of the options (empty when none).
    static func scopeSource(url: URL, given: [String]) -> ScopeSource {
        if !given.isEmpty { return .given(given) }
        if let host = url.host?.lowercased(), url.scheme?.lowercased() == "https",
            let resource = wellKnownResources[host]
        {
            return .wellKnown([resource + "/.default"])
        }
        return .resourceMetadata
    }

    /// What to do after the API answered.
    enum Next: Equatable {
        /// Get a token for the challenge's claims and call once more.
        case answerChallenge
        /// Stop with this exit code.
        case stop(ExitCode)
    }

    /// The next step after an answer with `status`: one claims challenge (a 401 asking for claims)
    /// is answered with a new token; a second one in a row stops.
    static func next(status: Int, isClaimsChallenge: Bool, answeredOnce: Bool) -> Next {
        switch status {
        case 200...299: .stop(.success)
        case 401 where isClaimsChallenge && !answeredOnce: .answerChallenge
        case 429: .stop(.throttled)
        default: .stop(.httpError)
        }
    }

    /// The request the options describe.
    static func request(_ arguments: CommandLineArguments) throws -> MSALProtectedResourceRequest {
        typealias UsageError = CommandLineArguments.UsageError
        guard arguments.positional.count == 1, let text = arguments.positional.first else {
            throw UsageError(
                description: arguments.positional.isEmpty ? "the URL to call is required" : "give one URL",
                command: "rest")
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), url.host != nil,
            scheme == "https" || scheme == "http"
        else { throw UsageError(description: "'\(shown(text))' is not an https URL", command: "rest") }
        if scheme == "http" {
            guard ["127.0.0.1", "[::1]", "::1", "localhost"].contains(url.host?.lowercased() ?? "") else {
                throw UsageError(
                    description: "'\(shown(text))' is plain http: the token is sent over https only", command: "rest")
            }
            guard arguments.flag("allow-loopback-http") else {
                throw UsageError(
                    description: "'\(shown(text))' is plain http: the token is sent over https only "
                        + "(--allow-loopback-http for a server on this machine)", command: "rest")
            }
        }
        let method = (arguments.values["method"] ?? "GET").uppercased()
        guard methods.contains(method) else {
            throw UsageError(
                description: "--method '\(method)' is not one of \(methods.joined(separator: ", "))", command: "rest")
        }
        guard method != "HEAD" || arguments.values["body"] == nil else {
            throw UsageError(description: "--method HEAD sends no --body", command: "rest")
        }
        var headers: [(name: String, value: String)] = []
        for line in arguments.allValues["header"] ?? [] {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw UsageError(description: "--header '\(line)' is not \"Name: value\"", command: "rest")
            }
            headers.append(
                (String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
            )
        }
        var body: Data?
        if let text = arguments.values["body"] {
            if text.hasPrefix("@") {
                let path = String(text.dropFirst())
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw UsageError(description: "--body '@\(path)': the file cannot be read", command: "rest")
                }
                body = data
            } else {
                body = Data(text.utf8)
            }
        }
        if let body, !headers.contains(where: { $0.name.lowercased() == "content-type" }),
            (try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])) != nil
        {
            headers.append(("Content-Type", "application/json"))
        }
        var request = MSALProtectedResourceRequest(url: url, httpMethod: method, headers: headers, body: body)
        request.maximumResponseBodySize =
            try arguments.integer("max-response-size", in: 1...Int(Int32.max)) ?? defaultMaximumResponseSize
        request.allowsPlainHTTPLoopback = arguments.flag("allow-loopback-http")
        return request
    }

    static func run(_ arguments: CommandLineArguments, _ environment: [String: String]) async throws -> ExitCode {
        let options = try ApplicationOptions(arguments, environment: environment)
        let format = try OutputFormat(arguments)
        guard format != .tsv else {
            throw CommandLineArguments.UsageError(description: "-o tsv does not apply to rest (text, json or none)")
        }
        let request = try request(arguments)
        let given = arguments.values["scopes"] != nil || arguments.values["resource"] != nil
        let target =
            given ? try TokenTarget.parse(arguments, authority: options.authority, scopesRequired: true) : nil
        let source = target.map { .given($0.scopes) } ?? scopeSource(url: request.url, given: [])
        let application = try options.makeApplication()
        var metadata: MSALProtectedResourceMetadata?
        let scopes: [String]
        switch source {
        case .given(let value), .wellKnown(let value): scopes = value
        case .resourceMetadata:
            guard let found = try await resourceMetadata(of: request.url, application: application) else {
                throw CommandLineArguments.UsageError(
                    description: "cannot tell which token \(request.url.host ?? "the API") takes (no well-known "
                        + "API, no RFC 9728 resource metadata); pass --scope or --resource")
            }
            metadata = found
            scopes = found.scopes
        }
        let parameters = try TokenCommand.silentParameters(
            application, options: options, scopes: scopes, account: arguments.values["account"])
        parameters.resourceIndicator = target?.resourceIndicator
        if let metadata {
            parameters.authority = metadata.authority
            parameters.resourceIndicator = metadata.resourceIndicator
        }
        var result = try await application.acquireTokenSilent(with: parameters)
        var response = try await application.callProtectedResource(
            request, authorizationHeader: result.authorizationHeader)
        var answeredOnce = false
        while true {
            let challenge = response.challenge
            switch next(
                status: response.statusCode, isClaimsChallenge: challenge?.isClaimsChallenge ?? false,
                answeredOnce: answeredOnce)
            {
            case .answerChallenge:
                guard let challenge else { return .httpError }
                Console.error("msal: HTTP 401 with a claims challenge; getting a token with the claims")
                result = try await application.acquireToken(forChallenge: challenge, with: parameters)
                answeredOnce = true
                response = try await application.callProtectedResource(
                    request, authorizationHeader: result.authorizationHeader)
            case .stop(let code):
                report(response, code: code, answeredOnce: answeredOnce)
                try write(response, format: format)
                return code
            }
        }
    }

    /// The API's RFC 9728 metadata: for the URL (without query), else for its origin. `nil` when
    /// neither has usable metadata; network failures and cancellation are thrown.
    private static func resourceMetadata(of url: URL, application: MSALPublicClientApplication) async throws
        -> MSALProtectedResourceMetadata?
    {
        var candidates: [URL] = []
        if var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            components.query = nil
            components.fragment = nil
            if let resource = components.url { candidates.append(resource) }
            if !components.path.isEmpty && components.path != "/" {
                components.path = ""
                if let origin = components.url { candidates.append(origin) }
            }
        }
        for candidate in candidates {
            do {
                return try await application.protectedResourceMetadata(forResource: candidate)
            } catch {
                let nsError = error as NSError
                // Refused or oversized documents count as "none"; the network failing does not.
                if nsError.domain == NSURLErrorDomain && ![-1103, -1022].contains(nsError.code) { throw error }
            }
        }
        return nil
    }

    /// A URL as `msal` prints it: scheme, host and path as given, every value of the query and
    /// fragment replaced by `...` (query strings are personal data: SAS signatures, codes), the
    /// names kept so that the user recognises the URL.
    static func shown(_ url: String) -> String {
        guard let start = url.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return url }
        var result = String(url[..<start])
        var segment = ""
        func flush() {
            guard !segment.isEmpty else { return }
            if let equals = segment.firstIndex(of: "=") {
                result += segment[...equals] + "..."
            } else {
                result += "..."
            }
            segment = ""
        }
        for character in url[start...] {
            if "?#&;".contains(character) {
                flush()
                result.append(character)
            } else {
                segment.append(character)
            }
        }
        flush()
        return result
    }

    /// The status line (and, for a refusal, the challenge's error) on standard error.
    private static func report(_ response: MSALProtectedResourceResponse, code: ExitCode, answeredOnce: Bool) {
        Console.error("HTTP \(response.statusCode)")
        guard code != .success else { return }
        var reason = ""
        if let challenge = response.challenge {
            reason = [challenge.error, challenge.errorDescription].compactMap { $0 }.joined(separator: ": ")
        }
        if response.statusCode == 401, answeredOnce, response.challenge?.isClaimsChallenge == true {
            Console.error("msal: the API refused the token with the claims too (\(reason)); not trying again")
        } else if (300...399).contains(response.statusCode) {
            let location = shown(response.headerValues("Location").first ?? "?")
            Console.error("msal: the API redirects to \(location); redirections are not followed with a token")
        } else if !reason.isEmpty {
            Console.error("msal: the API refused the call: \(reason)")
        }
    }

    /// The body (or the JSON document) on standard output.
    private static func write(_ response: MSALProtectedResourceResponse, format: OutputFormat) throws {
        switch format {
        case .none, .tsv: return
        case .json:
            Console.line(try jsonDocument(response))
        case .text:
            if Console.standardOutputIsTerminal {
                let text = String(decoding: response.body, as: UTF8.self)
                Console.out(text.isEmpty || text.hasSuffix("\n") ? text : text + "\n")
            } else {
                FileHandle.standardOutput.write(response.body)
            }
        }
    }

    /// `{"status": 200, "headers": {"content-type": "..."}, "body": ...}`: the body as JSON when it
    /// is JSON, else as text (`body_base64` when it is not UTF-8). Repeated headers are joined with ", ".
    static func jsonDocument(_ response: MSALProtectedResourceResponse) throws -> String {
        var headers: [String: String] = [:]
        for (name, value) in response.headers {
            let key = name.lowercased()
            headers[key] = headers[key].map { $0 + ", " + value } ?? value
        }
        var document: [String: Any] = ["status": response.statusCode, "headers": headers]
        if let json = try? JSONSerialization.jsonObject(with: response.body, options: [.fragmentsAllowed]) {
            document["body"] = json
        } else if let text = String(data: response.body, encoding: .utf8) {
            document["body"] = text
        } else {
            document["body_base64"] = response.body.base64EncodedString()
        }
        let data = try JSONSerialization.data(
            withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }
}
