#ifndef TYPED_DEFAULTS_TEST_ENVIRONMENT_H
#define TYPED_DEFAULTS_TEST_ENVIRONMENT_H

/// The configuration folder Foundation keeps this process's suites in, as the library computes it:
/// `$XDG_CONFIG_HOME` when absolute, else `$HOME/.config`.
const char *typed_defaults_tests_config_home(void);

#endif
