/**
 * `@peculiar/x509`, ready to use: every module that needs X.509 imports it from here.
 *
 * Why a wrapper: the library's `tsyringe` dependency refuses to load unless a Reflect metadata
 * polyfill is installed first, and it must be told which WebCrypto to use. ESM evaluates
 * imports in order, so `reflect-metadata` runs before `@peculiar/x509`; the provider is set once
 * to Node's WebCrypto.
 */
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

// The library wants the DOM `Crypto` type; Node's WebCrypto implements it.
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

export * from '@peculiar/x509';
