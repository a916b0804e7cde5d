/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the runner prints when full isolation falls back to light because
 * the host gives no usable user namespace: a warning, never a silent
 * downgrade. The native provider lists both lines as informational, so a
 * warning is never read as the runner failing. */
#define NATIVE_WARN_NO_USERNS \
	"cordon: warning: no usable user namespace here: fell back to light isolation (host /tmp, no persistence protection); --require userns refuses instead"
#define NATIVE_WARN_USERNS_NO_CAPS \
	"cordon: warning: user namespaces give no capabilities here: fell back to light isolation (host /tmp, no persistence protection); --require userns refuses instead"
