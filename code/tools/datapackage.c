/*
 * datapackage.c - ipctax-datapackage: the schema of data/ as a Frictionless
 * Data Package (datapackage.json), on standard output.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "schema/schema.h"
#include "util/options.h"

#ifndef IPCTAX_COMMIT
#define IPCTAX_COMMIT "unknown"
#endif

/* <<describe-a-field>>, paper/90-appendix-report.md */
static const char *field_type(enum column_type type)
{
    return type == COLUMN_TEXT ? "string" : type == COLUMN_INT ? "integer" : "number";
}

/* A column as a Table Schema field: type, unit, description and constraints. */
static json_t *field(const struct data_column *c)
{
    json_t *constraints = json_object();
    if (c->type == COLUMN_TEXT) {
        json_object_set_new(constraints, "minLength", json_integer((json_int_t)c->min));
        json_object_set_new(constraints, "maxLength", json_integer((json_int_t)c->max));
    } else {
        json_object_set_new(constraints, "minimum", json_real(c->min));
        json_object_set_new(constraints, "maximum", json_real(c->max));
    }
    int required = c->type == COLUMN_TEXT ? c->min > 0 : c->type != COLUMN_NUM_OR_EMPTY;
    json_object_set_new(constraints, "required", json_boolean(required));
    json_t *f = json_pack("{s:s,s:s,s:s}", "name", c->name, "type", field_type(c->type),
                          "description", c->description);
    if (c->unit[0] != '\0')
        json_object_set_new(f, "unit", json_string(c->unit));
    json_object_set_new(f, "constraints", constraints);
    return f;
}

/* <<describe-a-file>>, paper/90-appendix-report.md */
static json_t *fields(const struct data_column *columns, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, field(&columns[i]));
    return a;
}

/* "a,b" as ["a", "b"]. */
static json_t *key_list(const char *key)
{
    json_t *a = json_array();
    for (const char *p = key; p != NULL && *p != '\0';) {
        size_t n = strcspn(p, ",");
        json_array_append_new(a, json_stringn(p, n));
        p += n + (p[n] == ',');
    }
    return a;
}

static json_t *resource(const struct data_file *f)
{
    size_t n;
    const struct data_column *columns = data_file_header(f, &n);
    json_t *schema = json_pack("{s:o,s:[s],s:o}", "fields", fields(columns, n),
                               "missingValues", "", "primaryKey", key_list(f->key));
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(strcspn(f->name, ".")), f->name);
    json_t *r = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:o}", "name", name, "path", f->name,
                          "profile", "tabular-data-resource", "format", "csv",
                          "mediatype", "text/csv", "encoding", "utf-8",
                          "description", f->description, "schema", schema);
    if (f->flags & KEY_VALUE)
        json_object_set_new(r, "keys", fields(f->columns, f->n_columns));
    return r;
}

/* <<describe-the-package>>, paper/90-appendix-report.md */
static void usage(FILE *to)
{
    fprintf(to, "usage: ipctax-datapackage\n"
                "Writes the schema of data/ (code/schema/) as a Frictionless Data Package,\n"
                "datapackage.json, on standard output.\n"
                "\n"
                "Exit status: 0; 1 when it cannot be written; 2 for a refused command line.\n");
}

int main(int argc, char **argv)
{
    int status;
    if (options_of_operands(argc, argv, "ipctax-datapackage", IPCTAX_COMMIT, usage, &status))
        return status;
    if (argc != 1)
        return usage_error("ipctax-datapackage", "takes no operands, got %d", argc - 1);
    json_t *resources = json_array();
    for (size_t i = 0; i < N_DATA_FILES; i++)
        json_array_append_new(resources, resource(&DATA_FILES[i]));
    json_array_append_new(resources, resource(&MANIFEST_FILE));
    json_t *package = json_pack("{s:s,s:s,s:s,s:[{s:s,s:s}],s:o}", "profile",
                                "tabular-data-package", "name", "ipctax-data", "title",
                                "The IPC Tax, re-run in C: the measurements", "licenses",
                                "name", "CC-BY-4.0", "path",
                                "https://creativecommons.org/licenses/by/4.0/", "resources",
                                resources);
    int failed = package == NULL || json_dumpf(package, stdout, JSON_INDENT(1)) != 0 ||
                 fputc('\n', stdout) == EOF || fflush(stdout) != 0;
    json_decref(package);
    if (failed)
        fprintf(stderr, "ipctax-datapackage: cannot write the package\n");
    return failed ? 1 : 0;
}
