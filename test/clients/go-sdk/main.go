// Command go-sdk-conformance drives Infisical's Go SDK against a service (the Coffer devserver in
// the tests) and prints a JSON report of every call's outcome (see report.go). It takes its
// target from the environment:
//
//	SITE_URL       the service's base URL (without /api)
//	CLIENT_ID      a universal-auth client id of an identity with admin access to the project
//	CLIENT_SECRET  its client secret
//	PROJECT_ID     the project to work in; PROJECT_SLUG its slug
//	ENVIRONMENT    an environment slug of that project (empty at the start)
//	JWT_IDENTITY_ID, JWT  an identity with static-key JWT auth and a JWT it accepts
//
// It exits 0 whenever it could print a report, whatever the calls' outcomes: judging them is the
// test's job. It exits 2 when the environment is incomplete.
package main

import (
	"context"
	"fmt"
	"os"

	infisical "github.com/infisical/go-sdk"
)

// target is where the calls go.
type target struct {
	siteURL, clientID, clientSecret, projectID, projectSlug, environment string
}

func readTarget() (target, error) {
	t := target{
		siteURL:      os.Getenv("SITE_URL"),
		clientID:     os.Getenv("CLIENT_ID"),
		clientSecret: os.Getenv("CLIENT_SECRET"),
		projectID:    os.Getenv("PROJECT_ID"),
		projectSlug:  os.Getenv("PROJECT_SLUG"),
		environment:  os.Getenv("ENVIRONMENT"),
	}
	for name, v := range map[string]string{
		"SITE_URL": t.siteURL, "CLIENT_ID": t.clientID, "CLIENT_SECRET": t.clientSecret,
		"PROJECT_ID": t.projectID, "PROJECT_SLUG": t.projectSlug, "ENVIRONMENT": t.environment,
	} {
		if v == "" {
			return t, fmt.Errorf("missing environment variable %s", name)
		}
	}
	return t, nil
}

func main() {
	t, err := readTarget()
	if err != nil {
		fmt.Fprintln(os.Stderr, "go-sdk-conformance:", err)
		os.Exit(2)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := infisical.NewInfisicalClient(ctx, infisical.Config{
		SiteUrl:          t.siteURL,
		SilentMode:       true,
		AutoTokenRefresh: infisical.BoolPtr(false),
	})
	report := &Report{Client: "github.com/infisical/go-sdk"}
	s := &session{t: t, client: client, report: report}
	s.authCalls()
	s.secretCalls()
	s.folderCalls()
	s.loginCalls()
	s.dynamicSecretCalls()
	s.unservedCalls()
	s.revokeCalls()
	report.print()
}
