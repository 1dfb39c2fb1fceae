// SDK calls whose endpoints the devserver does not serve (KMS, SSH, and the LDAP
// login). They are still
// called, so the report shows each one's answer and the test can pin it as "not served": when
// the devserver starts serving one, the test says so instead of the call being skipped quietly.
package main

import (
	infisical "github.com/infisical/go-sdk"
)

func (s *session) unservedCalls() {
	s.report.record("kms.keys.create", func() (map[string]any, error) {
		_, err := s.client.Kms().Keys().Create(infisical.KmsCreateKeyOptions{
			Name: "conformance", ProjectId: s.t.projectID, KeyUsage: "encrypt-decrypt", EncryptionAlgorithm: "aes-256-gcm",
		})
		return nil, err
	})
	s.report.record("ssh.getSshHosts", func() (map[string]any, error) {
		_, err := s.client.Ssh().GetSshHosts(infisical.GetSshHostsOptions{})
		return nil, err
	})
	s.report.record("auth.ldapAuthLogin", func() (map[string]any, error) {
		_, err := s.client.Auth().LdapAuthLogin("00000000-0000-0000-0000-000000000000", "user", "not-a-password")
		return nil, err
	})
}
