// The SDK calls, grouped as the SDK groups them. Each call is recorded under a stable name
// ("<area>.<method>[.<variant>]") that the TypeScript test asserts one by one.
package main

import (
	"os"
	"sort"
	"strings"

	"github.com/go-resty/resty/v2"
	infisical "github.com/infisical/go-sdk"
	authapi "github.com/infisical/go-sdk/packages/api/auth"
	"github.com/infisical/go-sdk/packages/models"
)

// Values written and read back; the report only says whether what came back matches.
const (
	valueA      = "alpha-value"
	valueAAfter = "beta-value"
	folderName  = "app"
)

type session struct {
	t      target
	client infisical.InfisicalClientInterface
	report *Report
	token  string
}

func keysOf(secrets []models.Secret) []string {
	keys := make([]string, 0, len(secrets))
	for _, s := range secrets {
		keys = append(keys, s.SecretKey)
	}
	sort.Strings(keys)
	return keys
}

func pathsOf(secrets []models.Secret) map[string]string {
	paths := map[string]string{}
	for _, s := range secrets {
		paths[s.SecretKey] = s.SecretPath
	}
	return paths
}

// authCalls: universal-auth login, then renewal of the token it got (the SDK's own renewal call,
// on an HTTP client set up as the SDK sets up its own).
func (s *session) authCalls() {
	s.report.record("auth.universalAuthLogin", func() (map[string]any, error) {
		cred, err := s.client.Auth().UniversalAuthLogin(s.t.clientID, s.t.clientSecret)
		if err != nil {
			return nil, err
		}
		s.token = cred.AccessToken
		return map[string]any{
			"tokenType":         cred.TokenType,
			"expiresIn":         cred.ExpiresIn,
			"accessTokenMaxTTL": cred.AccessTokenMaxTTL,
			"hasToken":          cred.AccessToken != "",
			"clientUsesToken":   s.client.Auth().GetAccessToken() == cred.AccessToken,
		}, nil
	})
	s.report.record("auth.renewAccessToken", func() (map[string]any, error) {
		http := resty.New().SetBaseURL(strings.TrimSuffix(s.t.siteURL, "/") + "/api")
		cred, err := authapi.CallRenewAccessToken(http, authapi.RenewAccessTokenRequest{AccessToken: s.token})
		if err != nil {
			return nil, err
		}
		// The renewed token must be usable: the client continues with it.
		s.client.Auth().SetAccessToken(cred.AccessToken)
		s.token = cred.AccessToken
		_, listErr := s.client.Secrets().ListSecrets(infisical.ListSecretsOptions{
			ProjectID: s.t.projectID, Environment: s.t.environment,
		})
		return map[string]any{
			"tokenType":         cred.TokenType,
			"expiresIn":         cred.ExpiresIn,
			"accessTokenMaxTTL": cred.AccessTokenMaxTTL,
			"renewedTokenWorks": listErr == nil,
		}, nil
	})
}

func (s *session) secretCalls() {
	sec := s.client.Secrets()
	s.report.record("secrets.create", func() (map[string]any, error) {
		created, err := sec.Create(infisical.CreateSecretOptions{
			SecretKey: "KEY_A", SecretValue: valueA, SecretComment: "from the Go SDK",
			ProjectID: s.t.projectID, Environment: s.t.environment,
		})
		return map[string]any{
			"secretKey": created.SecretKey, "version": created.Version, "type": created.Type,
			"valueMatches": created.SecretValue == valueA, "comment": created.SecretComment,
		}, err
	})
	s.report.record("secrets.batch.create", func() (map[string]any, error) {
		created, err := sec.Batch().Create(infisical.BatchCreateSecretsOptions{
			ProjectID: s.t.projectID, Environment: s.t.environment,
			Secrets: []infisical.BatchCreateSecret{
				{SecretKey: "KEY_B", SecretValue: "b"},
				{SecretKey: "KEY_C", SecretValue: "c"},
			},
		})
		return map[string]any{"keys": keysOf(created)}, err
	})
	var etag string
	s.report.record("secrets.listSecrets", func() (map[string]any, error) {
		res, err := sec.ListSecrets(infisical.ListSecretsOptions{
			ProjectID: s.t.projectID, Environment: s.t.environment, SecretPath: "/",
		})
		etag = res.ETag
		return map[string]any{"keys": keysOf(res.Secrets), "hasETag": res.ETag != ""}, err
	})
	s.report.record("secrets.listSecrets.ifNoneMatch", func() (map[string]any, error) {
		res, err := sec.ListSecrets(infisical.ListSecretsOptions{
			ProjectID: s.t.projectID, Environment: s.t.environment, SecretPath: "/", IfNoneMatch: etag,
		})
		return map[string]any{"keys": keysOf(res.Secrets)}, err
	})
	s.report.record("secrets.list.bySlug.attachToProcessEnv", func() (map[string]any, error) {
		list, err := sec.List(infisical.ListSecretsOptions{
			ProjectSlug: s.t.projectSlug, Environment: s.t.environment, AttachToProcessEnv: true,
		})
		return map[string]any{"keys": keysOf(list), "processEnvSet": os.Getenv("KEY_A") == valueA}, err
	})
	s.report.record("secrets.retrieve", func() (map[string]any, error) {
		got, err := sec.Retrieve(infisical.RetrieveSecretOptions{
			SecretKey: "KEY_A", ProjectID: s.t.projectID, Environment: s.t.environment,
		})
		return map[string]any{
			"secretKey": got.SecretKey, "version": got.Version, "valueMatches": got.SecretValue == valueA,
		}, err
	})
	s.report.record("secrets.update", func() (map[string]any, error) {
		updated, err := sec.Update(infisical.UpdateSecretOptions{
			SecretKey: "KEY_A", NewSecretValue: valueAAfter, ProjectID: s.t.projectID, Environment: s.t.environment,
		})
		return map[string]any{"version": updated.Version, "valueMatches": updated.SecretValue == valueAAfter}, err
	})
	s.report.record("secrets.retrieve.bySlug.version1", func() (map[string]any, error) {
		got, err := sec.Retrieve(infisical.RetrieveSecretOptions{
			SecretKey: "KEY_A", ProjectSlug: s.t.projectSlug, Environment: s.t.environment, Version: 1,
		})
		return map[string]any{"version": got.Version, "valueMatches": got.SecretValue == valueA}, err
	})
	s.report.record("secrets.delete", func() (map[string]any, error) {
		deleted, err := sec.Delete(infisical.DeleteSecretOptions{
			SecretKey: "KEY_A", ProjectID: s.t.projectID, Environment: s.t.environment,
		})
		return map[string]any{"secretKey": deleted.SecretKey}, err
	})
	s.report.record("secrets.retrieve.afterDelete", func() (map[string]any, error) {
		_, err := sec.Retrieve(infisical.RetrieveSecretOptions{
			SecretKey: "KEY_A", ProjectID: s.t.projectID, Environment: s.t.environment,
		})
		return nil, err
	})
}

// folderCalls: create a folder, write a secret into it, list recursively, list folders, rename
// the folder and delete it.
func (s *session) folderCalls() {
	fold := s.client.Folders()
	var folderID string
	s.report.record("folders.create", func() (map[string]any, error) {
		f, err := fold.Create(infisical.CreateFolderOptions{
			ProjectID: s.t.projectID, Environment: s.t.environment, Name: folderName,
		})
		folderID = f.ID
		return map[string]any{"name": f.Name, "hasId": f.ID != "", "hasEnvId": f.EnvironmentID != ""}, err
	})
	s.report.record("secrets.create.inFolder", func() (map[string]any, error) {
		created, err := s.client.Secrets().Create(infisical.CreateSecretOptions{
			SecretKey: "KEY_D", SecretValue: "d", SecretPath: "/" + folderName,
			ProjectID: s.t.projectID, Environment: s.t.environment,
		})
		return map[string]any{"secretKey": created.SecretKey}, err
	})
	s.report.record("secrets.listSecrets.recursive", func() (map[string]any, error) {
		res, err := s.client.Secrets().ListSecrets(infisical.ListSecretsOptions{
			ProjectID: s.t.projectID, Environment: s.t.environment, Recursive: true,
		})
		return map[string]any{"keys": keysOf(res.Secrets), "paths": pathsOf(res.Secrets)}, err
	})
	s.report.record("folders.list", func() (map[string]any, error) {
		list, err := fold.List(infisical.ListFoldersOptions{ProjectID: s.t.projectID, Environment: s.t.environment})
		names := []string{}
		for _, f := range list {
			names = append(names, f.Name)
		}
		return map[string]any{"names": names}, err
	})
	s.report.record("folders.update", func() (map[string]any, error) {
		f, err := fold.Update(infisical.UpdateFolderOptions{
			FolderID: folderID, ProjectID: s.t.projectID, Environment: s.t.environment, NewName: folderName + "-renamed",
		})
		return map[string]any{"name": f.Name, "sameId": f.ID == folderID}, err
	})
	s.report.record("folders.delete", func() (map[string]any, error) {
		f, err := fold.Delete(infisical.DeleteFolderOptions{
			FolderID: folderID, ProjectID: s.t.projectID, Environment: s.t.environment,
		})
		return map[string]any{"sameId": f.ID == folderID}, err
	})
}

// revokeCalls: revoke the token, then show that the service no longer accepts it.
func (s *session) revokeCalls() {
	s.report.record("auth.revokeAccessToken", func() (map[string]any, error) {
		err := s.client.Auth().RevokeAccessToken()
		return map[string]any{"clientTokenCleared": s.client.Auth().GetAccessToken() == ""}, err
	})
	s.report.record("secrets.listSecrets.afterRevoke", func() (map[string]any, error) {
		s.client.Auth().SetAccessToken(s.token)
		_, err := s.client.Secrets().ListSecrets(infisical.ListSecretsOptions{
			ProjectID: s.t.projectID, Environment: s.t.environment,
		})
		return nil, err
	})
}
