/// Who a request's authority lets sign in: the tenant it names, or one of Entra's audiences.
enum EmulatorAudience: Equatable {
    /// `common`: work or school accounts and personal Microsoft accounts.
    case common
    /// `organizations`: work or school accounts.
    case organizations
    /// `consumers`: personal Microsoft accounts.
    case consumers
    /// One tenant (by id or domain; for B2C with a policy).
    case tenant(EmulatorTenant)

    /// Resolves the tenant of `route` against the directory, or says why it cannot (AADSTS90002).
    static func resolve(_ route: EmulatorRoute, in state: EmulatorState) -> Result<EmulatorAudience, EntraErrorResponse>
    {
        if route.style == .adfs {
            if let farm = state.tenants.first(where: { $0.kind == .adfs }) { return .success(.tenant(farm)) }
            return .failure(notFound("adfs"))
        }
        if route.policy == nil {
            switch route.tenant.lowercased() {
            case "common": return .success(.common)
            case "organizations": return .success(.organizations)
            case "consumers": return .success(.consumers)
            default: break
            }
        }
        guard let tenant = state.tenant(named: route.tenant) else { return .failure(notFound(route.tenant)) }
        if (route.policy != nil) != (tenant.kind == .b2c) || tenant.kind == .adfs {
            return .failure(notFound(route.tenant))
        }
        return .success(.tenant(tenant))
    }

    static func notFound(_ name: String) -> EntraErrorResponse {
        EntraErrorResponse(
            error: "invalid_tenant", code: 90002,
            message: "Tenant '\(name)' not found. Check to make sure you have the correct tenant ID and are "
                + "signing into the correct cloud.")
    }

    /// The tenant id tokens for `user` get under this audience, or `nil` when the user cannot sign
    /// in here (no profile in the tenant, a work account at `consumers`...).
    func tenantId(for user: EmulatorUser, in state: EmulatorState) -> String? {
        let homeKind = state.tenant(id: user.homeTenantId)?.kind ?? .workforce
        switch self {
        case .common: return [.workforce, .microsoftAccounts].contains(homeKind) ? user.homeTenantId : nil
        case .organizations: return homeKind == .workforce ? user.homeTenantId : nil
        case .consumers: return homeKind == .microsoftAccounts ? user.homeTenantId : nil
        case .tenant(let tenant): return user.objectId(inTenant: tenant.id) == nil ? nil : tenant.id
        }
    }

    /// The error for a user who cannot sign in here (AADSTS50020).
    func userNotInTenant(_ user: EmulatorUser, route: EmulatorRoute) -> EntraErrorResponse {
        EntraErrorResponse(
            error: "invalid_request", code: 50020,
            message: "User account '\(user.username)' from identity provider does not exist in tenant "
                + "'\(route.tenant)' and cannot access the application in that tenant.")
    }
}
