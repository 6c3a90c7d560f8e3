/* xml.h: text in XML that always parses (see xml.c). */
#ifndef GT_XML_H
#define GT_XML_H

#include <stdio.h>

/* s as the text of an element or a quoted attribute's value; NULL as nothing. */
void gt_xml_text(FILE *f, const char *s);

#endif
