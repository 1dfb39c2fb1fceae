// The JWT, OIDC and Kubernetes logins. The JWT login is a real one: JWT_IDENTITY_ID and JWT name
// an identity whose JWT auth holds the static public key the test signed JWT with. The OIDC and
// Kubernetes logins are called for an identity without those methods, so the service's
// "method not found for identity" 404 (not a route-not-found) shows each route is served and its
// error reaches the SDK. The client's own token is restored after each login.
package main

import "os"

const unknownIdentity = "00000000-0000-0000-0000-000000000000"

func (s *session) loginCalls() {
	s.report.record("auth.jwtAuthLogin", func() (map[string]any, error) {
		defer s.client.Auth().SetAccessToken(s.token)
		cred, err := s.client.Auth().JwtAuthLogin(os.Getenv("JWT_IDENTITY_ID"), os.Getenv("JWT"))
		if err != nil {
			return nil, err
		}
		return map[string]any{
			"tokenType":         cred.TokenType,
			"expiresIn":         cred.ExpiresIn,
			"accessTokenMaxTTL": cred.AccessTokenMaxTTL,
			"hasToken":          cred.AccessToken != "",
			"clientUsesToken":   s.client.Auth().GetAccessToken() == cred.AccessToken,
		}, nil
	})
	s.report.record("auth.oidcAuthLogin", func() (map[string]any, error) {
		defer s.client.Auth().SetAccessToken(s.token)
		_, err := s.client.Auth().OidcAuthLogin(unknownIdentity, "not-a-jwt")
		return nil, err
	})
	s.report.record("auth.kubernetesRawServiceAccountTokenLogin", func() (map[string]any, error) {
		defer s.client.Auth().SetAccessToken(s.token)
		_, err := s.client.Auth().KubernetesRawServiceAccountTokenLogin(unknownIdentity, "not-a-token")
		return nil, err
	})
}
