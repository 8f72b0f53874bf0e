/* json_preloads.c - see json_preloads.h.  Presentation only. */
#include "render/json_preloads.h"
#include "core/json.h"
#include "loader/ldso.h"

void json_preloads(struct json *j, const char *key, const struct ldso_preload *p, size_t n)
{
	json_arr_begin(j, key);
	for (size_t i = 0; i < n; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "name", p[i].name);
		json_str(j, "via", p[i].via);
		json_str(j, "path", p[i].path);
		json_str(j, "realpath", p[i].realpath);
		json_str(j, "soname", p[i].soname);
		json_str(j, "error", p[i].error);
		json_obj_end(j);
	}
	json_arr_end(j);
}
