/**
 * Installs the Reflect metadata polyfill (the `reflect-metadata` package) that
 * `@peculiar/x509` needs. Kept only for modules that still import it before the library;
 * new code imports X.509 from `src/x509.ts`, which does this itself.
 */
import 'reflect-metadata';
