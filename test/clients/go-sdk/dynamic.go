// Dynamic-secret calls against a dynamic secret the TypeScript test created ("go-sdk-gcp", a
// provider type the devserver stores but issues no leases for): list and get by name, the lease
// list, a lease request (the devserver's "not available" 400 shows the SDK's body was accepted),
// and get, renew and revoke of a lease id that does not exist (404 after the body was accepted).
package main

import (
	infisical "github.com/infisical/go-sdk"
)

const (
	dynamicSecretName = "go-sdk-gcp"
	missingLeaseID    = "00000000-0000-4000-8000-000000000000"
)

func (s *session) dynamicSecretCalls() {
	ds := s.client.DynamicSecrets()
	s.report.record("dynamicSecrets.list", func() (map[string]any, error) {
		list, err := ds.List(infisical.ListDynamicSecretsRootCredentialsOptions{
			ProjectSlug: s.t.projectSlug, EnvironmentSlug: s.t.environment, SecretPath: "/",
		})
		names := []string{}
		for _, d := range list {
			names = append(names, d.Name+":"+d.Type)
		}
		return map[string]any{"names": names}, err
	})
	s.report.record("dynamicSecrets.getByName", func() (map[string]any, error) {
		got, err := ds.GetByName(infisical.GetDynamicSecretRootCredentialByNameOptions{
			DynamicSecretName: dynamicSecretName, ProjectSlug: s.t.projectSlug, EnvironmentSlug: s.t.environment, SecretPath: "/",
		})
		return map[string]any{"name": got.Name, "type": got.Type, "defaultTTL": got.DefaultTTL}, err
	})
	s.report.record("dynamicSecrets.leases.list", func() (map[string]any, error) {
		leases, err := ds.Leases().List(infisical.ListDynamicSecretLeasesOptions{
			DynamicSecretName: dynamicSecretName, ProjectSlug: s.t.projectSlug, EnvironmentSlug: s.t.environment, SecretPath: "/",
		})
		return map[string]any{"count": len(leases)}, err
	})
	s.report.record("dynamicSecrets.leases.create", func() (map[string]any, error) {
		_, _, _, err := ds.Leases().Create(infisical.CreateDynamicSecretLeaseOptions{
			DynamicSecretName: dynamicSecretName, ProjectSlug: s.t.projectSlug, EnvironmentSlug: s.t.environment, SecretPath: "/",
		})
		return nil, err
	})
	s.report.record("dynamicSecrets.leases.getById", func() (map[string]any, error) {
		_, err := ds.Leases().GetById(infisical.GetDynamicSecretLeaseByIdOptions{
			LeaseId: missingLeaseID, ProjectSlug: s.t.projectSlug, EnvironmentSlug: s.t.environment, SecretPath: "/",
		})
		return nil, err
	})
	s.report.record("dynamicSecrets.leases.renewById", func() (map[string]any, error) {
		_, err := ds.Leases().RenewById(infisical.RenewDynamicSecretLeaseOptions{
			LeaseId: missingLeaseID, ProjectSlug: s.t.projectSlug, EnvironmentSlug: s.t.environment, SecretPath: "/",
		})
		return nil, err
	})
	s.report.record("dynamicSecrets.leases.deleteById", func() (map[string]any, error) {
		_, err := ds.Leases().DeleteById(infisical.DeleteDynamicSecretLeaseOptions{
			LeaseId: missingLeaseID, ProjectSlug: s.t.projectSlug, EnvironmentSlug: s.t.environment, SecretPath: "/",
		})
		return nil, err
	})
}
