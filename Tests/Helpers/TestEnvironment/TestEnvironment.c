// Runs before the tests' first line and after their last: a test run leaves nothing in the
// configuration folder. Every suite a test makes is named `typed-defaults-tests.…` (and the standard
// domain of the test binary is its own); the library never removes a suite's lock file (see
// FileLock.swift), and a test may end before its cleanup runs, so what is left with those names is
// removed at exit, by the test run's own process (not by the exit tests' children). Registered before
// the library's own exit-time save, this removal runs after it.
//
// The folder is not swapped for a temporary one: Foundation reads the environment when it starts,
// before any code of the tests can change it, so it would keep using the real one.
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "TestEnvironment.h"

static char config_home[4096];

const char *typed_defaults_tests_config_home(void) { return config_home; }

static int is_test_file(const char *name) {
    static const char *prefixes[] = {
        "typed-defaults-tests.", ".typed-defaults-tests.",
        "TypedDefaultsPackageTests.xctest.plist", ".TypedDefaultsPackageTests.xctest.plist.",
    };
    for (size_t index = 0; index < sizeof prefixes / sizeof prefixes[0]; index++) {
        if (strncmp(name, prefixes[index], strlen(prefixes[index])) == 0) return 1;
    }
    return 0;
}

static void remove_test_files(void) {
    DIR *folder = opendir(config_home);
    if (folder == NULL) return;
    struct dirent *entry;
    char path[8192];
    while ((entry = readdir(folder)) != NULL) {
        if (!is_test_file(entry->d_name)) continue;
        snprintf(path, sizeof path, "%s/%s", config_home, entry->d_name);
        unlink(path);
    }
    closedir(folder);
}

__attribute__((constructor)) static void prepare_cleanup(void) {
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    if (xdg != NULL && xdg[0] == '/') {
        snprintf(config_home, sizeof config_home, "%s", xdg);
    } else {
        snprintf(config_home, sizeof config_home, "%s/.config", home ? home : "");
    }
    // Only the test run itself cleans up: an exit test runs this binary again as a child, which must
    // not remove the files of tests still running in its parent when it ends.
    if (getenv("TYPED_DEFAULTS_TESTS_RUN") != NULL) return;
    setenv("TYPED_DEFAULTS_TESTS_RUN", "1", 1);
    atexit(remove_test_files);
}
