/** One end user's authorization, as the auth endpoint accepted it; sealed into the state store. */
export interface AuthRequest {
  readonly workspaceId: string
  readonly integrationType: string
  /** Unified permissions the connection will hold. */
  readonly permissions: readonly string[]
  readonly environment: string
  readonly successRedirect?: string
  readonly failureRedirect?: string
  readonly externalXref?: string
  /** The caller's own state, echoed on the success redirect. */
  readonly state?: string
  /** PKCE verifier (OAuth providers that support it). */
  readonly codeVerifier?: string
  /** The redirect_uri sent to the provider; the token request must repeat it exactly. */
  readonly redirectUri?: string
  readonly lang?: string
}
