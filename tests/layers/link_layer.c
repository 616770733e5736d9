/* link_layer: an empty program linked with one layer of the library whole and only the
 * layers below it (tests/layers/meson.build), so that a call from that layer to one
 * above is an undefined reference: the build fails. */
int main(void)
{
    return 0;
}
