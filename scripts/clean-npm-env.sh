# Sourced by the setup scripts. Started from `npm test` or `npm run`, a shell carries the outer
# npm's variables (npm_*, NODE, npm_config_user_agent naming the outer Node), and an inner npm or
# an install script reads them as its own: code-server's postinstall refuses to run when they name
# Node 20. `"${CLEAN_NPM_ENV[@]}" npm ...` runs an inner npm without them, keeping the rest of the
# environment (such as NODE_EXTRA_CA_CERTS, which the registry may need), so a setup script behaves
# the same from npm and from a plain shell.
CLEAN_NPM_ENV=(env)
for name in $(compgen -e); do
  case "$name" in npm_* | NPM_* | NODE | INIT_CWD | COLOR) CLEAN_NPM_ENV+=(-u "$name") ;; esac
done
