internal import CMSALCurl

/// Owns one libcurl easy handle and everything libcurl reads from it during a transfer
/// (header list, error buffer, response buffers). Freed in `deinit`.
///
/// Not `Sendable`: after it is handed to the transfer loop only that thread touches it.
final class CurlEasyHandle {
    let handle: UnsafeMutableRawPointer
    /// `Expect:` followed by one node per header of ``headersInList``.
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var headersInList: [(name: String, value: String)] = []
    private var lastURL: String?
    private var connectToList: UnsafeMutablePointer<curl_slist>?
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// The request body curl sends (`CURLOPT_POSTFIELDS` points here), reused between requests.
    private var bodyBuffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    var responseBody: [UInt8] = []
    var responseHeaders: [(name: String, value: String)] = []
    /// The current transfer's limits (``CurlRequest/maximumBodySize`` and
    /// ``CurlRequest/maximumHeaderSize``), read by the callbacks.
    var bodyLimit = CurlRequest.defaultMaximumBodySize
    var headerLimit = CurlRequest.defaultMaximumHeaderSize
    /// Bytes of response head received so far in the current transfer.
    var headerBytes = 0
    /// Set by a callback that stopped the transfer because a limit was passed.
    var exceededLimit: CurlError.ResponseLimit?
    /// The options of the last ``configure(for:userData:)`` that do not change from one request
    /// to the next of the same client; `nil` after ``reset()``.
    private var standingOptions: StandingOptions?

    /// Options that stay set on the handle between transfers, so a request like the previous one
    /// only sets its URL, headers and body.
    private struct StandingOptions {
        var method: String
        var hasBody: Bool
        var caFile: String?
        var connectTo: [String]
        var proxy: String?
        var connectTimeout: Double
        var timeout: Double
        var maximumBodySize: Int
        var userData: UnsafeMutableRawPointer

        init(_ request: CurlRequest, hasBody: Bool, userData: UnsafeMutableRawPointer) {
            method = request.method
            self.hasBody = hasBody
            caFile = request.caFile
            connectTo = request.connectTo
            proxy = request.proxy
            connectTimeout = request.connectTimeout
            timeout = request.timeout
            maximumBodySize = request.maximumBodySize
            self.userData = userData
        }

        /// Whether `request` needs exactly these options (compared in place, without copies).
        func fit(_ request: CurlRequest, hasBody: Bool, userData: UnsafeMutableRawPointer) -> Bool {
            self.hasBody == hasBody && self.userData == userData && connectTimeout == request.connectTimeout
                && timeout == request.timeout && maximumBodySize == request.maximumBodySize
                && method == request.method && caFile == request.caFile && connectTo == request.connectTo
                && proxy == request.proxy
        }
    }

    init() throws(NativeError) {
        try CurlGlobal.initializeOnce()
        guard let handle = cmsal_easy_init() else {
            throw NativeError(function: "curl_easy_init", reason: "out of memory")
        }
        self.handle = handle
        let size = cmsal_curl_error_size()
        errorBuffer = .allocate(capacity: size)
        errorBuffer.initialize(repeating: 0, count: size)
    }

    deinit {
        cmsal_easy_cleanup(handle)
        if let headerList { cmsal_slist_free_all(headerList) }
        if let connectToList { cmsal_slist_free_all(connectToList) }
        errorBuffer.deallocate()
        bodyBuffer.deallocate()
    }

    /// Resets the handle for a new transfer, keeping its connection and DNS caches.
    func reset() {
        cmsal_easy_reset(handle)
        if let headerList { cmsal_slist_free_all(headerList) }
        headerList = nil
        headersInList = []
        lastURL = nil
        if let connectToList { cmsal_slist_free_all(connectToList) }
        connectToList = nil
        errorBuffer[0] = 0
        responseBody = []
        responseHeaders = []
        headerBytes = 0
        exceededLimit = nil
        standingOptions = nil
    }

    /// Forgets the previous transfer's response (keeping the buffers' capacity) and what its
    /// callbacks counted, before the next transfer on the handle.
    func clearResponse() {
        responseBody.removeAll(keepingCapacity: true)
        responseHeaders.removeAll(keepingCapacity: true)
        headerBytes = 0
        exceededLimit = nil
    }

    /// Applies every option of `request`. When the handle's previous request had the same
    /// method, body presence, trust, redirections and timeouts, only the URL, headers and body
    /// are set again (as `curl_easy_perform` users do); otherwise the handle is reset first.
    /// Throws when libcurl refuses an option.
    func configure(for request: CurlRequest, userData: UnsafeMutableRawPointer) throws(NativeError) {
        // A POST always sends a body (possibly empty); without one curl would read stdin.
        let body = request.body ?? (request.method == "POST" ? [] : nil)
        errorBuffer[0] = 0
        clearResponse()
        bodyLimit = max(0, request.maximumBodySize)
        headerLimit = max(0, request.maximumHeaderSize)
        if standingOptions?.fit(request, hasBody: body != nil, userData: userData) != true {
            if standingOptions != nil { reset() }
            try setStandingOptions(for: request, body: body, userData: userData)
            standingOptions = StandingOptions(request, hasBody: body != nil, userData: userData)
        }
        if request.url != lastURL {
            lastURL = nil
            try set(CURLOPT_URL, string: request.url)
            lastURL = request.url
        }
        if let body {
            // The bytes go into the handle's own buffer, which outlives the transfer.
            if bodyBuffer.count < max(body.count, 1) {
                bodyBuffer.deallocate()
                bodyBuffer = .allocate(byteCount: max(body.count, 256), alignment: 8)
            }
            body.withUnsafeBytes { bodyBuffer.copyMemory(from: $0) }
            try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(body.count))
            try set(CURLOPT_POSTFIELDS, pointer: UnsafeRawPointer(bodyBuffer.baseAddress))
        }
        try updateHeaderList(to: request.headers)
    }

    /// Makes the header list hold `headers`, keeping the nodes of the previous request's list
    /// up to the first header that differs (the correlation header, sent last, changes with
    /// every request; the others rarely do).
    private func updateHeaderList(to headers: [(name: String, value: String)]) throws(NativeError) {
        guard let head = headerList else {
            // An empty `Expect:` stops curl from waiting for `100 Continue` before larger bodies.
            headerList = cmsal_slist_append(nil, "Expect:")
            headersInList = []
            guard headerList != nil else { throw NativeError(function: "curl_slist_append", reason: "out of memory") }
            return try updateHeaderList(to: headers)
        }
        var kept = 0
        while kept < min(headers.count, headersInList.count), headers[kept] == headersInList[kept] {
            kept += 1
        }
        // Cut the list after the `Expect:` node and the `kept` unchanged headers.
        var last = head
        for _ in 0..<kept {
            guard let next = last.pointee.next else { break }
            last = next
        }
        if let tail = last.pointee.next {
            last.pointee.next = nil
            cmsal_slist_free_all(tail)
        }
        headersInList = headers
        for header in headers[kept...] {
            guard let node = Self.appendLine(header) else {
                _ = cmsal_easy_setopt_ptr(handle, CURLOPT_HTTPHEADER, nil)
                headerList = nil
                headersInList = []
                cmsal_slist_free_all(head)
                throw NativeError(function: "curl_slist_append", reason: "out of memory")
            }
            last.pointee.next = node
            last = node
        }
        try set(CURLOPT_HTTPHEADER, pointer: UnsafeRawPointer(head))
    }

    /// A one-node list holding `name: value`, built in a stack buffer (curl copies it).
    private static func appendLine(_ header: (name: String, value: String)) -> UnsafeMutablePointer<curl_slist>? {
        let name = header.name.utf8
        let value = header.value.utf8
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: name.count + value.count + 3) { line in
            var position = 0
            func append(_ bytes: String.UTF8View) {
                for byte in bytes {
                    line[position] = CChar(bitPattern: byte)
                    position += 1
                }
            }
            append(name)
            line[position] = CChar(bitPattern: UInt8(ascii: ":"))
            line[position + 1] = CChar(bitPattern: UInt8(ascii: " "))
            position += 2
            append(value)
            line[position] = 0
            return cmsal_slist_append(nil, line.baseAddress!)
        }
    }

    private func setStandingOptions(
        for request: CurlRequest, body: [UInt8]?, userData: UnsafeMutableRawPointer
    ) throws(NativeError) {
        try set(CURLOPT_ERRORBUFFER, pointer: errorBuffer)
        try set(CURLOPT_PROTOCOLS_STR, string: "http,https")
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_FOLLOWLOCATION, 0)
        try set(CURLOPT_SSL_VERIFYPEER, 1)
        try set(CURLOPT_SSL_VERIFYHOST, 2)
        try set(CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2))
        try set(CURLOPT_ACCEPT_ENCODING, string: "")
        if let caFile = request.caFile {
            try set(CURLOPT_CAINFO, string: caFile)
        }
        if !request.connectTo.isEmpty {
            var list: UnsafeMutablePointer<curl_slist>?
            for entry in request.connectTo { list = cmsal_slist_append(list, entry) }
            connectToList = list
            try set(CURLOPT_CONNECT_TO, pointer: UnsafeRawPointer(list))
        }
        if let proxy = request.proxy {
            try set(CURLOPT_PROXY, string: proxy)
        }
        try set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(request.connectTimeout))
        try set(CURLOPT_TIMEOUT_MS, Self.milliseconds(request.timeout))
        if request.method != "HEAD" {
            // A body announced larger than the limit is refused before its first byte; the write
            // callback enforces the limit on bodies without a length (or with a false one). A HEAD
            // answer's Content-Length announces no body that comes, so it is not held to the limit.
            try set(CURLOPT_MAXFILESIZE_LARGE, offset: Int64(max(0, request.maximumBodySize)))
        }
        switch (request.method, body) {
        case ("GET", nil):
            try set(CURLOPT_HTTPGET, 1)
        case ("HEAD", nil):
            // NOBODY sends HEAD and ends the transfer with the head: an answer's Content-Length
            // describes the GET's body, which a HEAD answer never carries (RFC 9110 §9.3.2).
            // CUSTOMREQUEST "HEAD" would wait for those bytes until the timeout.
            try set(CURLOPT_NOBODY, 1)
        case ("POST", _):
            try set(CURLOPT_POST, 1)
        case (_, nil):
            try set(CURLOPT_CUSTOMREQUEST, string: request.method)
        case (_, .some):
            // Another method with a body: post the body under the custom method name.
            try set(CURLOPT_POST, 1)
            try set(CURLOPT_CUSTOMREQUEST, string: request.method)
        }
        try check(cmsal_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, curlWriteBody), "WRITEFUNCTION")
        try set(CURLOPT_WRITEDATA, pointer: userData)
        try check(cmsal_easy_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, curlWriteHeader), "HEADERFUNCTION")
        try set(CURLOPT_HEADERDATA, pointer: userData)
    }

    /// The response status, headers and body once the transfer is done.
    func response() -> CurlResponse {
        var status = 0
        getInfo(CURLINFO_RESPONSE_CODE, &status)
        var connects = 0
        getInfo(CURLINFO_NUM_CONNECTS, &connects)
        return CurlResponse(status: status, headers: responseHeaders, body: responseBody, newConnections: connects)
    }

    /// The error for a failed transfer with result `code`.
    func error(code: CURLcode) -> CurlError {
        if code == CURLE_FILESIZE_EXCEEDED, exceededLimit == nil { exceededLimit = .body(bodyLimit) }
        if let exceededLimit {
            let message =
                switch exceededLimit {
                case .body(let limit): "the response body is larger than the limit of \(limit) bytes"
                case .headers(let limit): "the response headers are larger than the limit of \(limit) bytes"
                }
            return CurlError(code: CurlError.fileSizeExceededCode, message: message, exceededLimit: exceededLimit)
        }
        var osErrno = 0
        getInfo(CURLINFO_OS_ERRNO, &osErrno)
        var verifyResult = 0
        getInfo(CURLINFO_SSL_VERIFYRESULT, &verifyResult)
        var message = String(cString: errorBuffer)
        if message.isEmpty { message = String(cString: cmsal_easy_strerror(code)) }
        return CurlError(
            code: Int(code.rawValue),
            message: message,
            osErrno: osErrno,
            certificateVerifyResult: verifyResult
        )
    }

    private func getInfo(_ info: CURLINFO, _ value: inout Int) {
        var long = 0
        if cmsal_easy_getinfo_long(handle, info, &long) == CURLE_OK { value = long }
    }

    private func set(_ option: CURLoption, _ value: Int) throws(NativeError) {
        try check(cmsal_easy_setopt_long(handle, option, value), "\(option)")
    }

    private func set(_ option: CURLoption, offset: Int64) throws(NativeError) {
        try check(cmsal_easy_setopt_off(handle, option, curl_off_t(offset)), "\(option)")
    }

    /// libcurl copies string options (since 7.17), so a temporary C string is enough.
    private func set(_ option: CURLoption, string: String) throws(NativeError) {
        try check(cmsal_easy_setopt_ptr(handle, option, string), "\(option)")
    }

    private func set(_ option: CURLoption, pointer: UnsafeRawPointer?) throws(NativeError) {
        try check(cmsal_easy_setopt_ptr(handle, option, pointer), "\(option)")
    }

    /// `what` is built only on failure: describing a C enum value costs microseconds.
    private func check(_ code: CURLcode, _ what: @autoclosure () -> String) throws(NativeError) {
        guard code == CURLE_OK else {
            throw NativeError(
                function: "curl_easy_setopt(\(what()))", reason: String(cString: cmsal_easy_strerror(code)))
        }
    }

    private static func milliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return max(1, Int((seconds * 1000).rounded(.up)))
    }
}

/// CURLOPT_WRITEFUNCTION: appends body bytes to the handle's buffer, or stops the transfer (by
/// taking none of them) when they would pass the body limit.
private let curlWriteBody: cmsal_curl_data_callback = { data, size, count, userData in
    let length = size * count
    guard let data, let userData else { return length }
    let easy = Unmanaged<CurlEasyHandle>.fromOpaque(userData).takeUnretainedValue()
    guard length <= easy.bodyLimit - easy.responseBody.count else {
        easy.exceededLimit = .body(easy.bodyLimit)
        return 0
    }
    easy.responseBody.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
    return length
}

/// CURLOPT_HEADERFUNCTION: collects header lines; a status line starts a new response
/// (interim `100 Continue` responses are discarded this way). Stops the transfer when the heads
/// of the exchange pass the header limit together.
private let curlWriteHeader: cmsal_curl_data_callback = { data, size, count, userData in
    let length = size * count
    guard let data, let userData else { return length }
    let easy = Unmanaged<CurlEasyHandle>.fromOpaque(userData).takeUnretainedValue()
    easy.headerBytes += length
    guard easy.headerBytes <= easy.headerLimit else {
        easy.exceededLimit = .headers(easy.headerLimit)
        return 0
    }
    let line = UnsafeRawBufferPointer(start: data, count: length)
    if line.starts(with: "HTTP/".utf8) {
        easy.responseHeaders.removeAll(keepingCapacity: true)
    } else if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
        let name = trimmed(line[..<colon])
        let value = trimmed(line[(colon + 1)...])
        easy.responseHeaders.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
    }
    return length
}

/// The bytes without leading and trailing spaces, tabs, CR and LF.
private func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
    func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
    var slice = bytes
    while let first = slice.first, isSpace(first) { slice = slice.dropFirst() }
    while let last = slice.last, isSpace(last) { slice = slice.dropLast() }
    return slice
}

/// libcurl, loaded (`dlopen`) and initialized (`curl_global_init`) exactly once per process, before
/// any handle exists. A process that never sends a request never loads it.
enum CurlGlobal {
    private static let failure: String? = {
        var reason: UnsafePointer<CChar>?
        if cmsal_curl_load(&reason) == 1 { return nil }
        return reason.map { String(cString: $0) } ?? "libcurl could not be loaded"
    }()

    /// Loads libcurl, or says why it cannot be (no libcurl.so.4 on the machine, a libcurl without
    /// a function the transport needs, a failed global initialization).
    static func initializeOnce() throws(NativeError) {
        if let failure { throw NativeError(function: "dlopen(libcurl.so.4)", reason: failure) }
    }
}
