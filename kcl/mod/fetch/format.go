package fetch

// The OCI format of a KCL package, as kpm (`kcl mod push`) writes it: an OCI
// image manifest whose single layer is the package folder as a tar (files
// relative to the package root), with the package's metadata as manifest
// annotations. kpm wrote uncompressed tar layers before 2026 and writes
// tar+gzip since; both are read.
const (
	// MediaTypeLayerTarGzip is the layer and artifact type kpm writes now.
	MediaTypeLayerTarGzip = "application/vnd.oci.image.layer.v1.tar+gzip"
	// MediaTypeLayerTar is the layer and artifact type of packages pushed by older kpm.
	MediaTypeLayerTar = "application/vnd.oci.image.layer.v1.tar"
	// MediaTypeEmptyConfig is the config of OCI 1.1 artifacts (oras PackManifestVersion1_1).
	MediaTypeEmptyConfig = "application/vnd.oci.empty.v1+json"

	AnnotationName        = "org.kcllang.package.name"
	AnnotationVersion     = "org.kcllang.package.version"
	AnnotationDescription = "org.kcllang.package.description"
	// AnnotationSum is mod.Sum of the package folder, the lock's `sum`.
	AnnotationSum = "org.kcllang.package.sum"
	// AnnotationTitle names the layer file (<name>_<version>.tgz).
	AnnotationTitle   = "org.opencontainers.image.title"
	AnnotationCreated = "org.opencontainers.image.created"
)

// emptyConfig is the OCI empty descriptor's content.
var emptyConfig = []byte("{}")
